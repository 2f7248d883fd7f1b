package sqlstore_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

func TestLoadMigrations(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name    string
		fs      fstest.MapFS
		want    []string // names in order
		wantErr bool
	}{
		{"ordered by number", fstest.MapFS{"m/002_b.sql": file("B"), "m/001_a.sql": file("A"), "m/README": file("x")}, []string{"001_a.sql", "002_b.sql"}, false},
		{"none", fstest.MapFS{}, nil, false},
		{"gap", fstest.MapFS{"m/001_a.sql": file("A"), "m/003_c.sql": file("C")}, nil, true},
		{"doubled", fstest.MapFS{"m/001_a.sql": file("A"), "m/001_b.sql": file("B")}, nil, true},
		{"unnumbered", fstest.MapFS{"m/init.sql": file("A")}, nil, true},
		{"zero", fstest.MapFS{"m/000_a.sql": file("A")}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := sqlstore.LoadMigrations(tc.fs, "m")
			if (err != nil) != tc.wantErr {
				t.Fatalf("Got(LoadMigrations error) = %v; want error %v", err, tc.wantErr)
			}
			var got []string
			for i, m := range ms {
				got = append(got, m.Name)
				if m.Version != i+1 {
					t.Errorf("Got(%s version) = %d; want %d", m.Name, m.Version, i+1)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Got(names) = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestPending(t *testing.T) {
	ms := []sqlstore.Migration{{Version: 1}, {Version: 2}, {Version: 3}}
	for _, tc := range []struct {
		current, want int
		wantErr       bool
	}{{0, 3, false}, {2, 1, false}, {3, 0, false}, {4, 0, true}, {-1, 0, true}} {
		got, err := sqlstore.Pending(ms, tc.current)
		if (err != nil) != tc.wantErr || len(got) != tc.want {
			t.Errorf("Got(Pending(3 migrations, %d)) = %d, %v; want %d, error %v", tc.current, len(got), err, tc.want, tc.wantErr)
		}
		if len(got) > 0 && got[0].Version != tc.current+1 {
			t.Errorf("Got(Pending(%d) first) = %d; want %d", tc.current, got[0].Version, tc.current+1)
		}
	}
}

func TestThreadOrder(t *testing.T) {
	for _, tc := range []struct {
		opts    memory.ListThreadsOptions
		want    string
		wantErr bool
	}{
		{memory.ListThreadsOptions{}, "created_at DESC, id DESC", false},
		{memory.ListThreadsOptions{OrderBy: "updatedAt", Ascending: true}, "updated_at ASC, id ASC", false},
		{memory.ListThreadsOptions{OrderBy: "title; DROP TABLE threads"}, "", true},
		{memory.ListThreadsOptions{Page: -1}, "", true},
	} {
		_, got, err := sqlstore.ThreadOrder("user-1", tc.opts)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("Got(ThreadOrder(%+v)) = %q, %v; want %q, error %v", tc.opts, got, err, tc.want, tc.wantErr)
		}
	}
	if _, _, err := sqlstore.ThreadOrder("", memory.ListThreadsOptions{}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("Got(ThreadOrder with no resource) = %v; want an error wrapping memory.ErrInvalid", err)
	}
}

func TestCheckThreadIDs(t *testing.T) {
	for _, ids := range [][2]string{{"", "t"}, {"r", ""}, {"r", "bad id\x00"}} {
		if err := sqlstore.CheckThreadIDs(ids[0], ids[1]); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Got(CheckThreadIDs(%q, %q)) = %v; want an error wrapping memory.ErrInvalid", ids[0], ids[1], err)
		}
	}
	if err := sqlstore.CheckThreadIDs("r", "t"); err != nil {
		t.Errorf("Got(CheckThreadIDs(r, t)) = %v; want nil", err)
	}
}
