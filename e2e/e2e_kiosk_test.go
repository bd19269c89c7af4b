package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/internal/clitest"
)

// TestE2E_Kiosk runs the shipped binary's kiosk, built once for both:
// in a terminal (must-show 6) and over SSH (must-show 1).
func TestE2E_Kiosk(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	t.Run("IgnoresInterrupts", func(t *testing.T) { kioskIgnoresInterrupts(t, bin) })
	t.Run("OverRealSSH", func(t *testing.T) { kioskOverRealSSH(t, bin) })
}

// Must-show 6: the shipped binary's kiosk in a real terminal keeps
// running through ctrl+c, ctrl+z and ctrl+\ (and SIGINT-like keys typed
// at every screen); the staff chord with a wrong PIN does not end it; the
// chord with a manager's PIN does.
func kioskIgnoresInterrupts(t *testing.T, bin string) {
	data := filepath.Join(t.TempDir(), "data")
	tm := startTmux(t, 100, 40, "sh", "-c", "env BOXOFFICE_DATA="+data+" TERM=xterm-256color "+bin+" kiosk; echo KIOSK-EXITED $?; sleep 600")
	tm.waitFor("Welcome", "Book tickets")
	for _, k := range []string{"C-c", "C-z", `C-\`} {
		// No pause: keys reach the kiosk in order, so the Enter after a
		// key that ended or stopped it never shows the films.
		tm.send(k)
		tm.send("Enter") // still answering: into the films…
		tm.waitFor("Choose a film")
		tm.send("Escape") // …and back
		s := tm.waitFor("Welcome")
		if strings.Contains(s, "KIOSK-EXITED") {
			t.Fatalf("%s ended the kiosk:\n%s", k, s)
		}
	}
	tm.send("C-x", "C-e")
	tm.waitFor("Close the kiosk")
	tm.send("demo", "Tab", "0000", "Enter")
	tm.waitFor("cannot close the kiosk", "Welcome")
	tm.send("C-x", "C-e")
	tm.waitFor("Close the kiosk")
	tm.send("demo", "Tab", "1234", "Enter")
	tm.waitFor("KIOSK-EXITED 0")
}
