package e2e

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/internal/clitest"
	"boxoffice/internal/pgtest"
	"boxoffice/internal/sshclient"
)

// Issue 14, must show 2: two `serve` processes with data dirs of their own
// on one PostgreSQL database, a counter on each over a real SSH
// connection. Round after round both press enter on the same seat at the
// same moment: one holds it, the other is told it was just taken and
// offered the seats next to it, and the loser's map (on the other server)
// repaints with the seat held. The second server signs with the first's
// ticket key (copied, as the README says), so a ticket sold on one admits
// at the other.
func TestE2E_TwoServersOnePostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs two servers")
	}
	url := pgtest.URL(t)
	rounds := 100
	if os.Getenv("BOXOFFICE_PG_ROUNDS") == "short" {
		rounds = 20
	}
	bin := clitest.Binary(t)
	dir := t.TempDir()
	dataA, dataB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	cli := func(data, stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--data", data, "--db", url}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
		return string(out)
	}
	cli(dataA, "", "init")
	if err := os.MkdirAll(dataB, 0o700); err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(filepath.Join(dataA, "ticket_key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataB, "ticket_key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	signers := map[string]gossh.Signer{}
	for _, name := range []string{"Ann", "Ben"} {
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		signer, err := gossh.NewSignerFromKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		pub := filepath.Join(dir, name+".pub")
		if err := os.WriteFile(pub, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
			t.Fatal(err)
		}
		cli(dataA, "4321\n", "staff", "add", name, "--role", "clerk", "--key-file", pub)
		signers[name] = signer
	}
	a, b := startPGServe(t, bin, dataA, url), startPGServe(t, bin, dataB, url)
	ann, ben := dialCounter(t, a, "Ann", signers["Ann"]), dialCounter(t, b, "Ben", signers["Ben"])
	for _, c := range []*sshclient.Client{ann, ben} {
		c.Send("\x1b[C") // → tomorrow
		waitScreen(t, c, "Tomorrow", "Grand")
		c.Send("\r")
		waitScreen(t, c, "SCREEN")
	}

	wins := map[string]int{}
	for i := range rounds {
		// In the centre blocks of twelve rows, never the second seat
		// from an aisle: with the show empty, such a pick would leave a
		// single seat and the single-seat rule would ask first.
		row := "CDEFGHJKLMNO"[i%12]
		first := 6
		if row == 'C' {
			first = 5
		}
		seat := fmt.Sprintf("%c%d", row, first+[]int{0, 2, 3, 4, 5, 6, 7, 8, 9}[i/12])
		for _, c := range []*sshclient.Client{ann, ben} {
			c.Send("/")
			waitScreen(t, c, "Go to seat")
		}
		together(seat+"\r", ann, ben)
		won := "Holding 1: " + seat
		lost := regexp.MustCompile(regexp.QuoteMeta(seat) + ` (was just taken — .* free next to it|is held at another counter)`)
		outcome := func(c *sshclient.Client) string {
			var got string
			if !c.WaitFor(20*time.Second, func(s string) bool {
				switch {
				case strings.Contains(s, won):
					got = "won"
				case lost.MatchString(s):
					got = "lost"
				}
				return got != ""
			}) {
				t.Fatalf("round %d (%s): no answer:\n%s", i, seat, c.Scr.Text())
			}
			return got
		}
		oa, ob := outcome(ann), outcome(ben)
		if (oa == "won") == (ob == "won") {
			t.Fatalf("round %d (%s): Ann %s, Ben %s\nAnn:\n%s\nBen:\n%s", i, seat, oa, ob, ann.Scr.Text(), ben.Scr.Text())
		}
		winner, loser := ann, ben
		if ob == "won" {
			winner, loser = ben, ann
		}
		wins[map[bool]string{true: "Ann", false: "Ben"}[winner == ann]]++
		if strings.Contains(loser.Scr.Text(), "was just taken") {
			loser.Send("\x1b") // choose again
		}
		// The loser's map, on the other server, shows the winner's hold.
		if !loser.WaitFor(5*time.Second, func(s string) bool {
			return freeCount(s) == freeCount(winner.Scr.Text()) && !strings.Contains(s, "was just taken")
		}) {
			t.Fatalf("round %d: the loser's map did not repaint: free %d there, %d at the winner", i, freeCount(loser.Scr.Text()), freeCount(winner.Scr.Text()))
		}
		winner.Send("x")
		waitScreen(t, winner, "y yes, release")
		winner.Send("y")
		waitScreen(t, winner, "Released ")
		if !loser.WaitFor(5*time.Second, func(s string) bool { return freeCount(s) == freeCount(winner.Scr.Text()) }) {
			t.Fatalf("round %d: the release did not repaint the other server's map", i)
		}
	}
	t.Logf("%d rounds: Ann (server A) won %d, Ben (server B) won %d", rounds, wins["Ann"], wins["Ben"])
}

// startPGServe starts `serve` on data and url and returns its address and
// host key.
func startPGServe(t *testing.T, bin, data, url string) *serveCmd {
	s := &serveCmd{t: t, out: &clitest.SyncBuffer{}, addr: "127.0.0.1:" + freePort(t)}
	s.cmd = exec.Command(bin, "--data", data, "--db", url, "serve", "--listen", s.addr)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	re := regexp.MustCompile(`Host key (SHA256:\S+)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(s.out.String()); m != nil {
			s.fingerprint = m[1]
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start:\n%s", s.out.String())
		}
	}
}

func dialCounter(t *testing.T, s *serveCmd, name string, signer gossh.Signer) *sshclient.Client {
	t.Helper()
	cfg := &gossh.ClientConfig{User: name, Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)}, Timeout: 30 * time.Second,
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
	waitScreen(t, c, "Free  Sold")
	return c
}

func waitScreen(t *testing.T, c *sshclient.Client, texts ...string) {
	t.Helper()
	if !c.WaitFor(20*time.Second, func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("never showed %q:\n%s", texts, c.Scr.Text())
	}
}

// together sends keys to every client at the same moment.
func together(keys string, cs ...*sshclient.Client) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, c := range cs {
		wg.Go(func() {
			<-start
			c.Send(keys)
		})
	}
	close(start)
	wg.Wait()
}

// freeRE reads the "free N/M" of a seat map's status line.
var freeRE = regexp.MustCompile(`free (\d+)/(\d+)`)

// freeCount is the "free N/M" a seat map shows, or -1.
func freeCount(screen string) int {
	m := freeRE.FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	var n int
	fmt.Sscan(m[1], &n)
	return n
}
