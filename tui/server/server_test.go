package server_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/tui/server"
)

// Must show 1: an unknown key and a disabled staff member's key are
// refused at authentication, before any session (so nothing is drawn).
func TestServer_Auth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)

	t.Run("ErrUnknownKey", func(t *testing.T) {
		stranger, _ := newKey(t)
		_, err := e.dial(120, 40, stranger)
		if err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
			t.Fatalf("unknown key: err = %v, want an authentication failure", err)
		}
		fp := gossh.FingerprintSHA256(stranger.PublicKey())
		if !waitLog(e, "auth failure", fp) {
			t.Errorf("no auth failure logged for %s:\n%s", fp, e.logs.String())
		}
	})

	t.Run("ErrDisabledStaff", func(t *testing.T) {
		key := e.staffKey("dave", booking.RoleClerk)
		c := e.mustDial(key) // enabled: gets in
		c.waitText("dave")
		c.close()
		if err := e.store.DisableStaff(context.Background(), booking.System, "dave"); err != nil {
			t.Fatal(err)
		}
		_, err := e.dial(120, 40, key)
		if err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
			t.Fatalf("disabled staff: err = %v, want an authentication failure", err)
		}
		if !waitLog(e, "auth failure", "disabled") {
			t.Errorf("no auth failure logged for the disabled key:\n%s", e.logs.String())
		}
	})

	t.Run("ErrRemovedTerminal", func(t *testing.T) {
		key := e.terminalKey("till-9")
		if err := e.store.RemoveTerminal(context.Background(), booking.System, "till-9"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.dial(120, 40, key); err == nil {
			t.Fatal("a removed terminal's key got in")
		}
	})
}

// The key-offer confusion: a client offers a staff member's public key,
// which the server's callback vets and accepts as a query, but never signs
// with it; it then authenticates with a terminal key. The session must be
// the terminal's: the identity comes only from the key that signed.
func TestServer_KeyOfferConfusion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	staff := e.staffKey("victim", booking.RoleManager)
	term := e.terminalKey("till-7")

	cfg := e.clientConfig()
	step := 0
	cfg.AuthCallback = func(*gossh.ClientAuthContext) (gossh.AuthMethod, error) {
		step++
		switch step {
		case 1: // offer the staff key, then fail to sign
			return gossh.PublicKeys(offerOnly{staff.PublicKey()}), nil
		case 2:
			return gossh.PublicKeys(term), nil
		}
		return nil, nil
	}
	conn, err := gossh.Dial("tcp", e.addr, cfg)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if step != 2 {
		t.Fatalf("auth took %d steps, want the offer and then the terminal key", step)
	}
	c, err := openCounter(t, conn, 120, 40, true)
	if err != nil {
		t.Fatal(err)
	}
	c.waitText("Sign in at this counter")
	c.waitText("till-7")
	if strings.Contains(c.scr.Text(), "victim") {
		t.Fatalf("session opened as the offered key's owner:\n%s", c.scr.Text())
	}
	if strings.Contains(e.logs.String(), gossh.FingerprintSHA256(staff.PublicKey())) {
		t.Errorf("the offered staff key was refused at the query, so the test did not offer it:\n%s", e.logs.String())
	}
	if !waitLog(e, "connect", "terminal=till-7") {
		t.Errorf("connect not logged as the terminal:\n%s", e.logs.String())
	}
}

// offerOnly offers a public key it cannot sign for.
type offerOnly struct{ pub gossh.PublicKey }

func (o offerOnly) PublicKey() gossh.PublicKey { return o.pub }

func (o offerOnly) Sign(io.Reader, []byte) (*gossh.Signature, error) {
	return nil, errors.New("no private key")
}

// Must show 2: a staff key opens signed in on the shows list; a terminal
// key opens the clerk sign-in screen of that terminal, and signing in
// there works.
func TestServer_OpensBySortOfKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)

	t.Run("StaffKey", func(t *testing.T) {
		c := e.mustDial(e.staffKey("anna", booking.RoleClerk))
		c.waitText("anna (clerk)")
		c.waitText("First Film")
		c.waitText("Today, ")
		if !waitLog(e, "connect", "staff=anna") {
			t.Errorf("connect not logged:\n%s", e.logs.String())
		}
		c.close()
		if !waitLog(e, "disconnect", "staff=anna") {
			t.Errorf("disconnect not logged:\n%s", e.logs.String())
		}
	})

	t.Run("TerminalKey", func(t *testing.T) {
		c := e.mustDial(e.terminalKey("till-1"))
		c.waitText("Sign in at this counter")
		c.waitText("till-1")
		if strings.Contains(c.scr.Text(), "First Film") {
			t.Fatalf("terminal session shows the programme before sign-in:\n%s", c.scr.Text())
		}
		c.send("carl")
		c.send("\t")
		c.send("1234\r")
		c.waitText("carl (clerk)")
		c.waitText("First Film")
	})
}

// A session without a PTY is told to use ssh -t and ends.
func TestServer_NoPTY(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	conn, err := gossh.Dial("tcp", e.addr, e.clientConfig(e.staffKey("pat", booking.RoleClerk)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := openCounter(t, conn, 80, 24, false)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("session without a PTY did not end")
	}
	err = c.sess.Wait()
	if ee, ok := err.(*gossh.ExitError); !ok || ee.ExitStatus() != 1 {
		t.Errorf("exit = %v, want status 1", err)
	}
	if !strings.Contains(c.stderr.String(), "ssh -t") {
		t.Errorf("stderr = %q, want a hint to use ssh -t", c.stderr.String())
	}
}

// The host key is made once, 0600, and reused.
func TestServer_HostKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	path := filepath.Join(e.dir, server.HostKeyFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("host key mode %04o, want 0600", fi.Mode().Perm())
	}
	again, err := server.New(server.Config{DataDir: e.dir, Store: e.store})
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint() != e.srv.Fingerprint() {
		t.Errorf("second start made a new host key: %s, then %s", e.srv.Fingerprint(), again.Fingerprint())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(server.Config{DataDir: e.dir, Store: e.store}); err == nil {
		t.Error("a host key readable by others was accepted")
	}
}

// waitLog waits until one log line holds all of parts.
func waitLog(e *env, parts ...string) bool { return waitLogCount(e, 1, parts...) }

// countLog counts the server log's lines that contain every part.
func countLog(e *env, parts ...string) int {
	n := 0
	for _, line := range strings.Split(e.logs.String(), "\n") {
		all := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				all = false
				break
			}
		}
		if all {
			n++
		}
	}
	return n
}

// waitLogCount waits up to 5 s for at least n log lines with every part.
func waitLogCount(e *env, n int, parts ...string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if countLog(e, parts...) >= n {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
