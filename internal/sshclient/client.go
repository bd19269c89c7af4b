package sshclient

import (
	"context"
	"io"
	"net"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Client is one counter: an SSH connection with a PTY whose output is
// replayed onto Scr.
type Client struct {
	Scr   *Screen
	conn  *gossh.Client
	sess  *gossh.Session
	stdin io.WriteCloser
	done  chan struct{} // closed when the session's output ends
}

// Dial connects to addr from the local address from (a loopback address
// such as 127.0.0.7, so many counters do not all count as one machine
// against the server's per-address limits; "" for any), opens a w×h PTY
// and starts the counter.
func Dial(ctx context.Context, addr, from string, cfg *gossh.ClientConfig, w, h int) (*Client, error) {
	return DialPTY(ctx, addr, from, cfg, w, h, w, h)
}

// DialPTY is Dial with the PTY asked for at ptyW×ptyH, which may be far
// larger than the w×h screen the output is replayed onto: a client that
// claims a huge terminal.
func DialPTY(ctx context.Context, addr, from string, cfg *gossh.ClientConfig, w, h, ptyW, ptyH int) (*Client, error) {
	d := net.Dialer{Timeout: cfg.Timeout}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cc, chans, reqs, err := gossh.NewClientConn(nc, addr, cfg)
	if err != nil {
		nc.Close()
		return nil, err
	}
	c := &Client{Scr: NewScreen(w, h), conn: gossh.NewClient(cc, chans, reqs), done: make(chan struct{})}
	if err := c.open(ptyW, ptyH); err != nil {
		c.conn.Close()
		return nil, err
	}
	return c, nil
}

func (c *Client) open(w, h int) error {
	sess, err := c.conn.NewSession()
	if err != nil {
		return err
	}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		return err
	}
	if c.stdin, err = sess.StdinPipe(); err != nil {
		return err
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return err
	}
	sess.Stderr = io.Discard
	if err := sess.Shell(); err != nil {
		return err
	}
	c.sess = sess
	go func() {
		defer close(c.done)
		_, _ = io.Copy(c.Scr, stdout)
	}()
	return nil
}

// Send types keys: text, or escape sequences such as "\x1b[A".
func (c *Client) Send(keys string) error {
	_, err := io.WriteString(c.stdin, keys)
	return err
}

// WindowChange tells the server the terminal is now w×h; the screen keeps
// its size.
func (c *Client) WindowChange(w, h int) error { return c.sess.WindowChange(h, w) }

// WaitFor waits up to d until ok(screen text) holds and reports whether
// it did; it gives up early when the session ends.
func (c *Client) WaitFor(d time.Duration, ok func(string) bool) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		ch := c.Scr.Changed()
		if ok(c.Scr.Text()) {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return ok(c.Scr.Text())
		case <-c.done:
			return ok(c.Scr.Text())
		}
	}
}

// Done is closed when the server ends the session.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close ends the connection.
func (c *Client) Close() error { return c.conn.Close() }
