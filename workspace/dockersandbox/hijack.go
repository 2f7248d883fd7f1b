package dockersandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
)

// An exec's streams travel on the connection of its start request, which
// the engine takes over ("hijacks") once it answered: the process's
// stdin is what the client writes on it, its stdout and stderr come back
// multiplexed (see demux). net/http hands over such a connection only
// without its write half's end, so the request is written by hand on a
// connection of this package's own, and closing the write half is what
// tells the engine that stdin ended.

// stream is a started exec's connection.
type stream struct {
	conn net.Conn
	r    *bufio.Reader
}

// startExec starts the exec id and returns its stream.
func (e *Engine) startExec(ctx context.Context, id string) (*stream, error) {
	conn, err := e.dial(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w at %s: %v", ErrEngineUnreachable, e.host, err)
	}
	// The context bounds the request and its answer; the stream itself
	// is ended by the caller closing it.
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	s, err := e.handshake(conn, id)
	if !stop() {
		if s != nil {
			_ = conn.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return s, nil
}

func (e *Engine) handshake(conn net.Conn, id string) (*stream, error) {
	body := []byte(`{"Detach":false,"Tty":false}`)
	req, err := http.NewRequest(http.MethodPost, e.base+"/v"+e.version+"/exec/"+id+"/start", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "tcp")
	if err := req.Write(conn); err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrEngineUnreachable, e.host, err)
	}
	r := bufio.NewReaderSize(conn, 32<<10)
	resp, err := http.ReadResponse(r, req)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrEngineUnreachable, e.host, err)
	}
	// 101 when the engine upgrades as asked; older engines answer 200 and
	// stream all the same.
	if resp.StatusCode != http.StatusSwitchingProtocols && resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, apiError(resp)
	}
	return &stream{conn: conn, r: r}, nil
}

// closeWrite ends the process's stdin.
func (s *stream) closeWrite() error {
	if tc, ok := s.conn.(*tls.Conn); ok {
		// tls.Conn.CloseWrite sends close_notify only; the engine waits
		// for the socket's own end.
		if err := tc.CloseWrite(); err != nil {
			return err
		}
		if cw, ok := tc.NetConn().(interface{ CloseWrite() error }); ok {
			return cw.CloseWrite()
		}
		return nil
	}
	if cw, ok := s.conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.New("the connection cannot end stdin alone")
}

func (s *stream) close() { _ = s.conn.Close() }

// The engine's multiplexed stream: frames of an 8-byte header (the
// stream, 3 zero bytes, the payload's length as big-endian uint32) and the
// payload.
const (
	streamStdin  = 0
	streamStdout = 1
	streamStderr = 2
	streamSystem = 3
)

// errSystem is what the engine said on its system stream (3), where it
// reports that it could not run the process.
type errSystem struct{ msg string }

func (e *errSystem) Error() string { return "the engine reported: " + e.msg }

// demux copies the frames of r to stdout and stderr until r ends. A frame
// on the system stream ends it with an [*errSystem].
func demux(r io.Reader, stdout, stderr io.Writer) error {
	var hdr [8]byte
	buf := make([]byte, 32<<10)
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		n := int64(binary.BigEndian.Uint32(hdr[4:]))
		var w io.Writer
		switch hdr[0] {
		case streamStdout:
			w = stdout
		case streamStderr:
			w = stderr
		case streamStdin:
			w = io.Discard
		case streamSystem:
			msg, _ := io.ReadAll(io.LimitReader(r, min(n, 4096)))
			return &errSystem{msg: string(msg)}
		default:
			return fmt.Errorf("unknown stream %d in the engine's output", hdr[0])
		}
		got, err := io.CopyBuffer(w, io.LimitReader(r, n), buf)
		if err != nil {
			return err
		}
		if got < n {
			return io.ErrUnexpectedEOF
		}
	}
}
