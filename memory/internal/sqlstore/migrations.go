package sqlstore

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Migration is one numbered schema change, from a file NNN_name.sql.
type Migration struct {
	Version int
	Name    string // the file's name, for errors
	SQL     string
}

// LoadMigrations reads the files dir/*.sql of fsys, each named
// NNN_name.sql, and returns them by version. The versions must run from 1
// with no gap, so a missing or doubled file is an error, not a schema
// quietly built without it.
func LoadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s is not named NNN_name.sql", base)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(b)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: want version %d", m.Name, i+1)
		}
	}
	return out, nil
}

// Pending returns the migrations of ms a database at schema version
// current has not applied, or an error if the database is newer than ms:
// a program must not write a schema it does not know.
func Pending(ms []Migration, current int) ([]Migration, error) {
	if current < 0 || current > len(ms) {
		return nil, fmt.Errorf("database schema version %d is newer than this program's %d", current, len(ms))
	}
	return ms[current:], nil
}
