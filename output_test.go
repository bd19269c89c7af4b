package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/internal/clitest"

	_ "modernc.org/sqlite"
)

// steering lists what must never reach a terminal from the command line:
// ESC (CSI, OSC), BEL (ends an OSC title), C1 CSI and the bidi override.
var steering = []string{"\x1b", "\x07", "\u009b", "\u202e", "\xc2\x9b", "\x9b"}

func assertClean(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range steering {
		if strings.Contains(out, s) {
			t.Errorf("%s holds %q:\n%q", what, s, out)
		}
	}
}

// Must show 6: a hall file whose name holds an OSC title sequence.
// `hall check` prints its name, its size or its mistakes, and leaves the
// terminal title alone: none of the bytes written is ESC or BEL.
func TestCLI_HallFileNameOSC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	osc := "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07"
	good := filepath.Join(dir, "screen"+osc+".hall")
	bad := filepath.Join(dir, "bad"+osc+".hall")
	missing := filepath.Join(dir, "gone"+osc+".hall")
	if err := os.WriteFile(good, []byte("hall: Small\nA | ssss\n"), 0o600); err != nil {
		t.Skipf("this file system refuses such a name: %v", err)
	}
	os.WriteFile(bad, []byte("hall: Bad\nA | ssxs\n"), 0o600)
	data := t.TempDir()
	code, out, errOut := runCLI(t, data, "", "hall", "check", good, bad, missing)
	if code != exitUsage {
		t.Fatalf("hall check: exit %d", code)
	}
	assertClean(t, "stdout", out)
	assertClean(t, "stderr", errOut)
	if !strings.Contains(out, "screen]0;pwned]52;c;ZWNobyBoaQ==.hall: Small, 1 rows, 4 seats") {
		t.Errorf("the good file is not reported by its name:\n%q", out)
	}
	if !strings.Contains(errOut, "bad]0;pwned]52;c;ZWNobyBoaQ==.hall:2:7:") || !strings.Contains(errOut, "gone]0;pwned") {
		t.Errorf("the bad and missing files are not reported by name:\n%q", errOut)
	}
	code, out, errOut = runCLI(t, data, "", "hall", "add", good)
	if code != 0 {
		t.Fatalf("hall add: %d %q", code, errOut)
	}
	assertClean(t, "hall add", out+errOut)
}

// Flag mistakes echo what was typed; the echo is cleaned too, in text and
// in JSON.
func TestCLI_FlagErrorsClean(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	for _, args := range [][]string{
		{"shows", "--\x1b]2;x\x07"},
		{"shows", "--date", "\x1b[2J2026-01-01"},
		{"sell", "1", "G7", "--tendered", "1\u009b31m"},
		{"staff", "\u202eevil"},
		{"\x1b[31mnocommand"},
		{"shows", "--json", "--\x1b]2;x\x07"},
	} {
		code, out, errOut := runCLI(t, data, "", args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d", args, code)
		}
		assertClean(t, strings.Join(args, " "), out+errOut)
	}
}

// Values already in the database reach the command line cleaned: a seat
// label with a C1 CSI and a bidi override prints without them as text,
// and as \u escapes in JSON that decodes to the stored value.
func TestCLI_StoredValuesClean(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "sell", show, "G7", "--allow-single", "--json")
	if code != 0 {
		t.Fatalf("sell: %d %s", code, errOut)
	}
	var b clitest.Booking
	json.Unmarshal([]byte(out), &b)
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	evil := "G7\u009b2J\u202e\x1b]0;x\x07"
	if _, err := raw.Exec(`UPDATE seats SET label = ? WHERE label = 'G7'`, evil); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, data, "", "booking", b.Number)
	if code != 0 {
		t.Fatalf("booking: %d %s", code, errOut)
	}
	assertClean(t, "booking", out)
	if !strings.Contains(out, "G72J]0;x") {
		t.Errorf("the seat is not shown:\n%s", out)
	}
	code, out, _ = runCLI(t, data, "", "booking", b.Number, "--json")
	if code != 0 {
		t.Fatal("booking --json")
	}
	assertClean(t, "booking --json", out)
	for _, esc := range []string{`\u009b`, `\u202e`, `\u001b`, `\u0007`} {
		if !strings.Contains(out, esc) {
			t.Errorf("JSON lacks %s:\n%s", esc, out)
		}
	}
	var got clitest.Booking
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Seats) != 1 || got.Seats[0] != evil {
		t.Fatalf("JSON does not decode to the stored label: %v %q", err, got.Seats)
	}
}

func TestEscapeJSON(t *testing.T) {
	t.Parallel()
	v := map[string]string{"s": "a\u009bb\u202ec\u2066d\U000E0001e\u00e9\u4e2d\x7f"}
	js, _ := json.Marshal(v)
	out := booking.EscapeJSON(js)
	assertClean(t, "escaped", string(out))
	for _, r := range string(out) {
		if r > 0x7e && r != 'é' && r != '中' {
			t.Errorf("left %U in %s", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["s"] != v["s"] {
		t.Fatalf("round trip: %v %q", err, back)
	}
}

// Staff administration a supervisor needs on day one, and the demo hint
// that goes once the demo PIN is changed.
func TestCLI_StaffAdmin(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	copyDemo(t, data)
	if code, _, errOut := runCLI(t, data, "4321\n", "staff", "add", "Maria", "--role", "clerk"); code != 0 {
		t.Fatal(errOut)
	}
	steps := []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"", []string{"staff", "role", "Maria", "supervisor"}, 0, "Maria is now a supervisor."},
		{"", []string{"staff", "role", "Maria", "emperor"}, exitUsage, "unknown role"},
		{"", []string{"staff", "disable", "Maria"}, 0, "Disabled Maria"},
		{"", []string{"staff", "enable", "Maria"}, 0, "Enabled Maria"},
		{"", []string{"staff", "unlock", "Maria"}, 0, "Unlocked Maria"},
		{"", []string{"staff", "unlock", "Nobody"}, exitNotFound, "No staff called Nobody."},
		{"12\n", []string{"staff", "pin", "Maria"}, exitUsage, "A PIN has 4 to 32 characters."},
		{"", []string{"staff", "pin", "Maria"}, exitUsage, "standard input"},
		{"8642\n", []string{"staff", "pin", "Maria"}, 0, "Set a new PIN for Maria."},
		{"", []string{"staff", "role", "Maria"}, exitUsage, "usage"},
	}
	for _, s := range steps {
		code, out, errOut := runCLI(t, data, s.stdin, s.args...)
		if code != s.code || !strings.Contains(out+errOut, s.want) {
			t.Errorf("%q: exit %d %q %q, want %d and %q", s.args, code, out, errOut, s.code, s.want)
		}
	}
	code, out, _ := runCLI(t, data, "", "staff", "list", "--json")
	var list []struct {
		Name     string `json:"name"`
		Role     string `json:"role"`
		Disabled bool   `json:"disabled"`
	}
	json.Unmarshal([]byte(out), &list)
	for _, st := range list {
		if st.Name == "Maria" && (st.Role != "supervisor" || st.Disabled) {
			t.Errorf("Maria after the changes: %+v", st)
		}
	}
	if code != 0 {
		t.Fatal("staff list")
	}
	if code, _, errOut := runCLI(t, data, "5678\n", "staff", "pin", "demo"); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, _ := runCLI(t, data, "", "init"); code != 0 || strings.Contains(out, "1234") || !strings.Contains(out, "already there") {
		t.Fatalf("init after the demo PIN changed: %q", out)
	}
}
