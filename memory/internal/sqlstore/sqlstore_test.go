package sqlstore_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/keel-go/keel"
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

// row is a one-row result: it scans vals into dest, or fails with err.
type row struct {
	vals []any
	err  error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	for i, d := range dest {
		switch d := d.(type) {
		case *int:
			*d = r.vals[i].(int)
		case *[]byte:
			*d = r.vals[i].([]byte)
		case *string:
			*d = r.vals[i].(string)
		}
	}
	return nil
}

func TestReadPage(t *testing.T) {
	read := func(off, n int) ([]int, error) {
		out := make([]int, n)
		for i := range out {
			out[i] = off + i
		}
		return out, nil
	}
	for _, tc := range []struct {
		page, perPage, total int
		want                 string
		more                 bool
	}{
		{0, 2, 5, "[0 1]", true},
		{2, 2, 5, "[4]", false},
		{3, 2, 5, "[]", false},
		{0, 2, 0, "[]", false},
	} {
		items, total, more, err := sqlstore.ReadPage(tc.page, tc.perPage, row{vals: []any{tc.total}}, read)
		if err != nil || fmt.Sprint(items) != tc.want || total != tc.total || more != tc.more {
			t.Errorf("Got(ReadPage(%d, %d) of %d) = %v, %d, %v, %v; want %s, %d, %v",
				tc.page, tc.perPage, tc.total, items, total, more, err, tc.want, tc.total, tc.more)
		}
	}
	boom := errors.New("boom")
	if _, _, _, err := sqlstore.ReadPage(0, 2, row{err: boom}, read); !errors.Is(err, boom) {
		t.Errorf("Got(ReadPage with a failing count) = %v; want %v", err, boom)
	}
	failRead := func(int, int) ([]int, error) { return nil, boom }
	if _, _, _, err := sqlstore.ReadPage(0, 2, row{vals: []any{3}}, failRead); !errors.Is(err, boom) {
		t.Errorf("Got(ReadPage with a failing read) = %v; want %v", err, boom)
	}
}

func TestBlobReader(t *testing.T) {
	noRows := errors.New("no rows")
	data := []byte("hello")
	good := memory.Digest(data)
	var queries int
	rows := map[string]row{
		good:     {vals: []any{len(data), data}},
		"short":  {vals: []any{9, data}},
		"forged": {vals: []any{len(data), data}},
	}
	var reads atomic.Int64
	blob := sqlstore.BlobReader(func(digest string) sqlstore.Row {
		queries++
		if r, ok := rows[digest]; ok {
			return r
		}
		return row{err: noRows}
	}, noRows, &reads)
	for range 2 {
		if got, err := blob(good); err != nil || string(got) != "hello" {
			t.Errorf("Got(blob(good)) = %q, %v; want hello", got, err)
		}
	}
	if queries != 1 || reads.Load() != 1 {
		t.Errorf("Got(queries, reads after reading one blob twice) = %d, %d; want 1, 1", queries, reads.Load())
	}
	for _, d := range []string{"missing", "short", "forged"} {
		if _, err := blob(d); !errors.Is(err, memory.ErrCorrupt) {
			t.Errorf("Got(blob(%s)) = %v; want an error wrapping memory.ErrCorrupt", d, err)
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

// rowsOf is a result set of ints.
type rowsOf struct {
	vals []int
	i    int
	err  error
}

func (r *rowsOf) Next() bool { r.i++; return r.i <= len(r.vals) }
func (r *rowsOf) Scan(dest ...any) error {
	*dest[0].(*int) = r.vals[r.i-1]
	return nil
}
func (r *rowsOf) Err() error { return r.err }

func TestScanAllAndDecodeMessages(t *testing.T) {
	scan := func(r sqlstore.Row) (int, error) {
		var v int
		err := r.Scan(&v)
		return v * 10, err
	}
	got, err := sqlstore.ScanAll(&rowsOf{vals: []int{1, 2, 3}}, scan)
	if err != nil || fmt.Sprint(got) != "[10 20 30]" {
		t.Errorf("Got(ScanAll) = %v, %v; want [10 20 30]", got, err)
	}
	boom := errors.New("boom")
	if _, err := sqlstore.ScanAll(&rowsOf{vals: []int{1}, err: boom}, scan); !errors.Is(err, boom) {
		t.Errorf("Got(ScanAll with a failing result set) = %v; want %v", err, boom)
	}
	msgs, err := sqlstore.DecodeMessages(nil, nil)
	if err != nil || msgs == nil || len(msgs) != 0 {
		t.Errorf("Got(DecodeMessages(nil)) = %#v, %v; want an empty, non-nil slice", msgs, err)
	}
}

func TestThreadAndMessagePages(t *testing.T) {
	readThreads := func(off, n int) ([]memory.Thread, error) {
		out := make([]memory.Thread, n)
		for i := range out {
			out[i].ID = fmt.Sprint("t", off+i)
		}
		return out, nil
	}
	opts := memory.ListThreadsOptions{Page: 1, PerPage: 2}
	tp, err := sqlstore.ThreadPage(opts, row{vals: []any{3}}, readThreads)
	if err != nil || len(tp.Threads) != 1 || tp.Threads[0].ID != "t2" || tp.Total != 3 || tp.Page != 1 || tp.PerPage != 2 || tp.HasMore {
		t.Errorf("Got(ThreadPage(page 1 of 3)) = %+v, %v; want thread t2 of 3, no more", tp, err)
	}
	tp, err = sqlstore.ThreadPage(opts, row{vals: []any{0}}, readThreads)
	if err != nil || tp.Threads == nil || len(tp.Threads) != 0 {
		t.Errorf("Got(ThreadPage of none) = %#v, %v; want an empty, non-nil list", tp.Threads, err)
	}

	enc, _, err := memory.EncodeMessage(keel.UserText("hi"))
	if err != nil {
		t.Fatal(err)
	}
	readMsgs := func(off, n int) ([]memory.EncodedMessage, error) { return []memory.EncodedMessage{enc}, nil }
	mp, err := sqlstore.MessagePage(memory.ListMessagesOptions{PerPage: 1}, row{vals: []any{2}}, readMsgs, nil)
	if err != nil || len(mp.Messages) != 1 || mp.Messages[0].ID != enc.ID || mp.Total != 2 || !mp.HasMore {
		t.Errorf("Got(MessagePage(first of 2)) = %+v, %v; want message %s of 2, more", mp, err, enc.ID)
	}
	mp, err = sqlstore.MessagePage(memory.ListMessagesOptions{PerPage: 1}, row{vals: []any{0}}, readMsgs, nil)
	if err != nil || mp.Messages == nil || len(mp.Messages) != 0 {
		t.Errorf("Got(MessagePage of none) = %#v, %v; want an empty, non-nil list", mp.Messages, err)
	}
}

func TestCheckOwner(t *testing.T) {
	noRows, boom := errors.New("no rows"), errors.New("boom")
	for _, tc := range []struct {
		name string
		row  row
		want error
	}{
		{"own", row{vals: []any{"r"}}, nil},
		{"another's", row{vals: []any{"other"}}, memory.ErrNotFound},
		{"missing", row{err: noRows}, memory.ErrNotFound},
		{"failed", row{err: boom}, boom},
	} {
		err := sqlstore.CheckOwner(tc.row, noRows, "r", "t")
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("Got(CheckOwner(%s)) = %v; want %v", tc.name, err, tc.want)
		}
	}
	// A thread of another resource reads exactly as a missing one.
	other := sqlstore.CheckOwner(row{vals: []any{"other"}}, noRows, "r", "t")
	missing := sqlstore.CheckOwner(row{err: noRows}, noRows, "r", "t")
	if other.Error() != missing.Error() {
		t.Errorf("Got(another's thread) = %q; want the same as a missing one, %q", other, missing)
	}
}
