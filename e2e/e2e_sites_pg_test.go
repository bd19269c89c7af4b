package e2e

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/internal/clitest"
	"boxoffice/internal/pgtest"
	"boxoffice/internal/sshclient"
)

// Sites through the real server (issue 14): on a chain of two cinemas
// `serve` gives each SSH session its site. A personal key of a member who
// works at North opens North's programme only; one of every site sees
// both; a registered terminal at North refuses a member of Main after
// their right PIN, and signs in one of every site to North's programme.
func TestE2E_SitesOverSSH(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs a server")
	}
	url := pgtest.URL(t)
	bin := clitest.Binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cli := commandLine(t, bin, "--data", data, "--db", url)
	cli("", "init")
	cli("", "site", "add", "North")
	hall := clitest.StudioAt(t, "Nord")
	cli("", "hall", "add", "--site", "North", hall)
	tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
	cli("", "show", "add", "--film", "1", "--hall", "Nord", "--at", tomorrow+" 23:30")
	signers := map[string]gossh.Signer{}
	keyFile := func(name string) string {
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		signer, err := gossh.NewSignerFromKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		pub := filepath.Join(dir, name+".pub")
		if err := os.WriteFile(pub, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
			t.Fatal(err)
		}
		signers[name] = signer
		return pub
	}
	cli("4321\n", "staff", "add", "zed", "--role", "clerk", "--key-file", keyFile("zed"), "--site", "North")
	cli("4321\n", "staff", "add", "ann", "--role", "clerk", "--key-file", keyFile("ann"))
	cli("4321\n", "staff", "add", "mo", "--role", "clerk", "--site", "Main")
	cli("", "terminal", "add", "till-n", "--key-file", keyFile("till-n"), "--site", "North")

	s := startPGServe(t, bin, data, url)
	tomorrowList := func(name string) string {
		t.Helper()
		c := dialCounter(t, s, name, signers[name])
		c.Send("\x1b[C") // → tomorrow
		waitScreen(t, c, "Tomorrow", "23:30")
		return c.Scr.Text()
	}
	if screen := tomorrowList("zed"); !strings.Contains(screen, "Nord") || strings.Contains(screen, "Grand") {
		t.Fatalf("zed (North) sees:\n%s", screen)
	}
	if screen := tomorrowList("ann"); !strings.Contains(screen, "Nord") || !strings.Contains(screen, "Grand") {
		t.Fatalf("ann (every site) sees:\n%s", screen)
	}

	till := dialTerminal(t, s, signers["till-n"])
	till.Send("mo\t4321\r")
	waitScreen(t, till, "mo works at Main, not at North.")
	till.Send("\t")   // back to the name, which the refusal kept
	till.Send("\x1b") // clears it
	// Typed before the escape is read, "ann" would make it alt+a.
	if !till.WaitFor(20*time.Second, func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if i := strings.Index(l, "Name "); i >= 0 {
				return !strings.Contains(l[i:], "mo")
			}
		}
		return false
	}) {
		t.Fatalf("the name was not cleared:\n%s", till.Scr.Text())
	}
	till.Send("ann\t4321\r")
	waitScreen(t, till, "Free  Sold")
	till.Send("\x1b[C")
	waitScreen(t, till, "Tomorrow", "Nord")
	if strings.Contains(till.Scr.Text(), "Grand") {
		t.Fatalf("ann at North's terminal sees Main's shows:\n%s", till.Scr.Text())
	}
}

// dialTerminal opens a session with a registered terminal's key: the
// sign-in screen.
func dialTerminal(t *testing.T, s *serveCmd, signer gossh.Signer) *sshclient.Client {
	t.Helper()
	cfg := &gossh.ClientConfig{User: "till", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)}, Timeout: 30 * time.Second,
		HostKeyCallback: func(_ string, _ net.Addr, key gossh.PublicKey) error {
			if fp := gossh.FingerprintSHA256(key); fp != s.fingerprint {
				return fmt.Errorf("host key %s, want %s", fp, s.fingerprint)
			}
			return nil
		}}
	c, err := sshclient.Dial(context.Background(), s.addr, "", cfg, 120, 40)
	if err != nil {
		t.Fatalf("dial %s: %v", s.addr, err)
	}
	t.Cleanup(func() { c.Close() })
	waitScreen(t, c, "Sign in")
	return c
}
