//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/creack/pty"
)

// promptLog is the stderr the prompts go to, read while they are written.
type promptLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (p *promptLog) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.b.Write(b)
}

func (p *promptLog) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.b.String()
}

// echoing reports whether the terminal echoes what is typed.
func echoing(t *testing.T, tty uintptr) bool {
	var tio syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, tty, syscall.TCGETS, uintptr(unsafe.Pointer(&tio))); errno != 0 {
		t.Fatal(errno)
	}
	return tio.Lflag&syscall.ECHO != 0
}

// The passphrase typed at a real terminal (a pty) is asked twice to seal
// and is never echoed: what the terminal shows is the typing's newlines at
// most.
func TestEnv_PassphraseAtTerminal(t *testing.T) {
	t.Setenv(passphraseEnv, "")
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	prompts := &promptLog{}
	c := &env{stdin: pts, stderr: prompts}
	type result struct {
		pass []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		p, err := c.passphrase("", true)
		done <- result{p, err}
	}()
	// Type each line once its prompt is out and the echo is off (typed
	// before, the terminal would echo it whatever the program does next).
	typeAfter := func(prompt, line string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(prompts.String(), prompt) || echoing(t, pts.Fd()); {
			if time.Now().After(deadline) {
				t.Fatalf("never asked %q with the echo off; asked %q", prompt, prompts.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		ptm.Write([]byte(line + "\n"))
	}
	typeAfter("Passphrase for the ticket keys: ", "correct horse battery")
	typeAfter("The same passphrase again: ", "correct horse battery")
	r := <-done
	if r.err != nil || string(r.pass) != "correct horse battery" {
		t.Fatalf("read %q %v", r.pass, r.err)
	}
	// Everything the terminal showed, up to a line the program writes now.
	pts.Write([]byte("END\n"))
	shown := bufio.NewReader(ptm)
	var screen strings.Builder
	for !strings.Contains(screen.String(), "END") {
		line, err := shown.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		screen.WriteString(line)
	}
	if strings.Contains(screen.String(), "horse") {
		t.Fatalf("the terminal echoed the passphrase: %q", screen.String())
	}
}
