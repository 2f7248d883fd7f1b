package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// SkipReason is the reason a test is skipped when PostgreSQL is missing
// and CI is not set.
const SkipReason = "PostgreSQL binaries not found; install Debian's postgresql package"

// BinDirEnv names an environment variable that, when set, is the one
// directory searched for initdb and pg_ctl.
const BinDirEnv = "KEEL_PG_BINDIR"

// ErrNoBinaries says that no PostgreSQL installation was found.
var ErrNoBinaries = errors.New("pgtest: " + SkipReason)

var (
	once    sync.Once
	srv     *server
	srvErr  error
	nextDB  atomic.Int64
	stopped atomic.Bool
)

// Start returns the URL of a new, empty database for t on the test
// binary's server, starting the server on first use. The database is
// dropped when t ends. Without PostgreSQL binaries it skips t, or fails it
// when the CI environment variable is set.
func Start(t testing.TB) string {
	t.Helper()
	url, name, err := newDatabase()
	if errors.Is(err, ErrNoBinaries) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (CI is set, so this fails instead of skipping)", err)
		}
		t.Skip(SkipReason)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := srv.admin(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return url
}

// NewDatabase returns the URL of a new, empty database on the test
// binary's server, starting the server on first use, for code that runs
// outside a test, such as examples (TestMain sets it up before m.Run).
// The database goes when the server stops. Without PostgreSQL binaries the
// error wraps [ErrNoBinaries].
func NewDatabase() (string, error) {
	url, _, err := newDatabase()
	return url, err
}

func newDatabase() (url, name string, err error) {
	once.Do(func() { srv, srvErr = startServer() })
	if srvErr != nil {
		return "", "", srvErr
	}
	if stopped.Load() {
		return "", "", errors.New("pgtest: the server was stopped")
	}
	name = fmt.Sprintf("test_%d_%d", os.Getpid(), nextDB.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := srv.admin(ctx, "CREATE DATABASE "+name); err != nil {
		return "", "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return srv.url(name), name, nil
}

// Run runs the tests of m and then stops the server if one was started;
// it returns m.Run's exit code. Call it from TestMain.
func Run(m *testing.M) int {
	code := m.Run()
	if err := Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Stop stops the server and removes its directory. It does nothing when
// no server was started.
func Stop() error {
	if srv == nil || !stopped.CompareAndSwap(false, true) {
		return nil
	}
	return srv.stop()
}

type server struct {
	bin     string // directory of initdb, pg_ctl and postgres
	dir     string // temporary directory: data/, the socket, the log
	port    int
	asOther bool // run commands as the postgres user through runuser
}

// findBinaries returns the directory holding initdb and pg_ctl: the
// newest Debian installation, else the one on PATH.
func findBinaries() (string, error) {
	if d, ok := os.LookupEnv(BinDirEnv); ok {
		if hasBinaries(d) {
			return d, nil
		}
		return "", fmt.Errorf("%w (in %s=%s)", ErrNoBinaries, BinDirEnv, d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	if i := slices.IndexFunc(dirs, hasBinaries); i >= 0 {
		return dirs[i], nil
	}
	if p, err := exec.LookPath("initdb"); err == nil && hasBinaries(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", ErrNoBinaries
}

// hasBinaries reports whether dir holds initdb and pg_ctl.
func hasBinaries(dir string) bool {
	return isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "pg_ctl"))
}

// version returns the major version of a /usr/lib/postgresql/N/bin path.
func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func startServer() (*server, error) {
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &server{bin: bin, dir: dir, asOther: os.Geteuid() == 0}
	if s.asOther {
		if err := chownToPostgres(dir); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := s.command("initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	// A free port can be taken by another process before the server binds
	// it; try a few.
	var lastErr error
	for range 3 {
		if s.port, err = freePort(); err != nil {
			lastErr = err
			continue
		}
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", s.port, dir)
		out, err := s.command("pg_ctl", "-w", "-t", "60", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "start").CombinedOutput()
		if err == nil {
			return s, nil
		}
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		lastErr = fmt.Errorf("pgtest: pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

func chownToPostgres(dir string) error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("pgtest: running as root needs a postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return nil
}

// command runs a PostgreSQL binary, as the postgres user when this
// process is root.
func (s *server) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.asOther {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// admin runs one statement in the postgres database.
func (s *server) admin(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func (s *server) stop() error {
	out, err := s.command("pg_ctl", "-w", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "stop").CombinedOutput()
	rmErr := os.RemoveAll(s.dir)
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	return rmErr
}
