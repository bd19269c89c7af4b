package escpostest

import (
	"bytes"
	"net"
	"sync"
	"testing"
	"time"

	"boxoffice/escpos"
)

// Printer is a network ESC/POS printer on loopback for tests: it takes a
// job per connection up to the paper status request (DLE EOT 4) every job
// of package paper ends with, answers it, and hands the job to Job. Stall
// makes it accept connections and never read them, like a jammed printer.
type Printer struct {
	ln     net.Listener
	jobs   chan []byte
	closed chan struct{}

	mu       sync.Mutex
	stall    bool
	paperOut bool
	stalled  []net.Conn
}

// NewPrinter listens on a free loopback port until the test ends.
func NewPrinter(tb testing.TB) *Printer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Printer{ln: ln, jobs: make(chan []byte, 16), closed: make(chan struct{})}
	go p.serve()
	tb.Cleanup(p.close)
	return p
}

// URL is the printer's address as a counter is given it.
func (p *Printer) URL() string { return "tcp://" + p.ln.Addr().String() }

// Stall makes new connections hang unread (true), or be served again
// (false); connections already hanging stay so until the test ends.
func (p *Printer) Stall(on bool) {
	p.mu.Lock()
	p.stall = on
	p.mu.Unlock()
}

// PaperOut makes the printer answer the status request with "paper end".
func (p *Printer) PaperOut(on bool) {
	p.mu.Lock()
	p.paperOut = on
	p.mu.Unlock()
}

// Job waits up to wait for the next job received whole.
func (p *Printer) Job(tb testing.TB, wait time.Duration) []byte {
	tb.Helper()
	select {
	case j := <-p.jobs:
		return j
	case <-time.After(wait):
		tb.Fatalf("the test printer got no job within %s", wait)
		return nil
	}
}

// NoJob fails the test if a job arrives within wait.
func (p *Printer) NoJob(tb testing.TB, wait time.Duration) {
	tb.Helper()
	select {
	case j := <-p.jobs:
		tb.Fatalf("the test printer got a job of %d bytes, want none", len(j))
	case <-time.After(wait):
	}
}

func (p *Printer) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		stall := p.stall
		if stall {
			p.stalled = append(p.stalled, c)
		}
		p.mu.Unlock()
		if !stall {
			go p.take(c)
		}
	}
}

// take reads one job up to the status request, answers it and passes the
// job on without the request.
func (p *Printer) take(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	var job bytes.Buffer
	buf := make([]byte, 4096)
	for !bytes.HasSuffix(job.Bytes(), escpos.StatusPaper) {
		n, err := c.Read(buf)
		job.Write(buf[:n])
		if err != nil {
			return
		}
	}
	p.mu.Lock()
	status := byte(0x12)
	if p.paperOut {
		status |= 0x6C
	}
	p.mu.Unlock()
	if _, err := c.Write([]byte{status}); err != nil {
		return
	}
	select {
	case p.jobs <- bytes.TrimSuffix(job.Bytes(), escpos.StatusPaper):
	case <-p.closed: // the test is over and read no more jobs
	}
}

func (p *Printer) close() {
	close(p.closed)
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.stalled {
		c.Close()
	}
}
