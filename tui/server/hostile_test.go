package server_test

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/internal/hostile"
)

// teeScreen is the client's screen that also keeps every byte the server
// sent, to look for sequences the screen would act on without showing.
type teeScreen struct {
	*screen
	raw *syncBuffer
}

func (s teeScreen) Write(p []byte) (int, error) {
	s.raw.Write(p)
	return s.screen.Write(p)
}

// oscTitle is an OSC that sets the window title; its text is group 1.
var oscTitle = regexp.MustCompile("\x1b\\][012];([^\x07\x1b]*)")

// TestHostile_SSH serves the counter over a real SSH session with every
// hostile string written into the film titles and the hall's name past
// the store, and reads every byte the session sends while the shows list
// and a seat map are drawn: the only window title is the program's own,
// no clipboard write or hyperlink, none of the table's DCS, APC, PM, SOS
// or colour sequences, no C1 control (as UTF-8 or a lone byte) and no
// bidi control reaches the client's terminal; the screen it shows is
// the titles cleaned.
func TestHostile_SSH(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	signer := e.staffKey("hostile mgr", booking.RoleManager)
	var first, second strings.Builder
	for i, h := range hostile.Strings {
		if h.Name == "10000 characters" {
			continue
		}
		if i%2 == 0 {
			first.WriteString(h.S)
		} else {
			second.WriteString(h.S)
		}
	}
	raw := e.rawDB()
	for _, q := range []struct {
		sql string
		arg string
	}{
		{`UPDATE films SET title = CAST(? AS TEXT) WHERE id = 1`, first.String()},
		{`UPDATE films SET title = CAST(? AS TEXT) WHERE id = 2`, second.String()},
		{`UPDATE halls SET name = CAST(? AS TEXT)`, first.String()},
	} {
		if _, err := raw.Exec(q.sql, []byte(q.arg)); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := gossh.Dial("tcp", e.addr, e.clientConfig(signer))
	if err != nil {
		t.Fatal(err)
	}
	tee := teeScreen{newScreen(100, 30), &syncBuffer{}}
	c := openTee(t, conn, tee, 100, 30)
	c.waitText("Red[5;31;47mBlink") // the first show's row, cleaned: the list is there to open
	c.send("\r")
	c.waitText("SCREEN")
	c.send("\x1b[B\x1b[C")          // move, so the seat line redraws
	c.waitText("Red[5;31;47mBlink") // the map's title
	stream := tee.raw.String()
	for _, m := range oscTitle.FindAllStringSubmatch(stream, -1) {
		if m[1] != "boxoffice" {
			t.Errorf("a window title of theirs: %q", m[1])
		}
	}
	for _, sig := range []string{"\x1b]52;", "\x1b]8;;https://evil", "\x1bP+q544e", "\x1b_Gf=100", "\x1b^private", "\x1bXstart",
		"\x1b[5;31;47m", "\x1b[1;2r", "\u009b", "\u009d", "\u0090", "\u202e", "\u2066", "\u200f", "\ufeff", "\u2028", "\U000E0001"} {
		if strings.Contains(stream, sig) {
			t.Errorf("the session sent %q", sig)
		}
	}
	for i := 0; i < len(stream); {
		r, size := utf8.DecodeRuneInString(stream[i:])
		if r == utf8.RuneError && size == 1 {
			t.Errorf("the session sent a byte that is not UTF-8 (0x%x) at %d", stream[i], i)
			break
		}
		i += size
	}
}

// openTee is openCounter with the session's output fed to tee.
func openTee(t *testing.T, conn *gossh.Client, tee teeScreen, w, h int) *client {
	t.Helper()
	sess, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	c := &client{tb: t, conn: conn, sess: sess, scr: tee.screen, stderr: &syncBuffer{}, done: make(chan struct{})}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	c.stdin, _ = sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	sess.Stderr = c.stderr
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		_, _ = io.Copy(tee, stdout)
	}()
	t.Cleanup(c.close)
	return c
}
