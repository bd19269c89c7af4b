package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the CLI goldens under testdata/cli/")

// TestMain runs the package's tests in UTC: the command line prints local
// times, in process and in the binaries the goldens start (they inherit
// the zone). It removes the binary the tests built (clitest.Binary) and
// the demo data dir they copied (copyDemo) when they are done.
func TestMain(m *testing.M) {
	os.Setenv("TZ", "UTC")
	time.Local = time.UTC
	code := m.Run()
	clitest.RemoveBinary()
	removeDemo()
	os.Exit(code)
}

// goldenClock is the instant every golden command reads as now: a Tuesday
// afternoon, with the 17:20 show in the Studio (show 13) still on sale and
// its doors open, and the 11:00 show in the Grand (show 1) closed to sales.
const goldenClock = "2026-12-01T17:00:00Z"

// goldenKey is the fixture's ticket key, so ticket codes repeat run to run.
var goldenKey = "1:" + strings.Repeat("ab", 32) + "\n"

// goldenStep is one command line of a golden scenario. Args naming no
// --data get "--data $DATA" in front; $DATA, $NUMBER1.. and $CODE1.. are
// replaced by the scenario's data dir and the booking numbers and ticket
// codes printed so far. loose replaces every digit in the output by N,
// for output that varies run to run (the history generator's counts).
type goldenStep struct {
	args  []string
	stdin string
	loose bool
}

func cmd(args ...string) goldenStep { return goldenStep{args: args} }

func withStdin(stdin string, args ...string) goldenStep {
	return goldenStep{args: args, stdin: stdin}
}

var (
	bookingNumber = regexp.MustCompile(`BO-[23456789A-HJKMNP-TV-Z]{8}`)
	ticketCode    = regexp.MustCompile(`"code": "([A-Z2-7]{20,})"`)
	anyDigits     = regexp.MustCompile(`[0-9]+`)
)

// goldenRun plays steps on a fresh data dir holding the fixture's ticket
// key and compares the transcript with testdata/cli/NAME.golden: every
// command's exit code, stdout and stderr, byte for byte after booking
// numbers (random) become $NUMBER1, $NUMBER2… in the order they appear.
func goldenRun(t *testing.T, name string, steps []goldenStep) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "ticket_key"), []byte(goldenKey), 0o600); err != nil {
		t.Fatal(err)
	}
	numbers := map[string]string{} // real number → placeholder
	var real []string              // real numbers, $NUMBER1 first
	var codes []string
	var transcript bytes.Buffer
	for _, s := range steps {
		args := make([]string, 0, len(s.args)+2)
		if !strings.Contains(strings.Join(s.args, "\x00"), "$DATA") {
			args = append(args, "--data", data)
		}
		for _, a := range s.args {
			a = strings.ReplaceAll(a, "$DATA", data)
			for i := len(real); i > 0; i-- {
				a = strings.ReplaceAll(a, fmt.Sprintf("$NUMBER%d", i), real[i-1])
			}
			for i := len(codes); i > 0; i-- {
				a = strings.ReplaceAll(a, fmt.Sprintf("$CODE%d", i), codes[i-1])
			}
			args = append(args, a)
		}
		code, out, errOut := goldenExec(t, args, s.stdin)
		for _, m := range ticketCode.FindAllStringSubmatch(out, -1) {
			codes = append(codes, m[1])
		}
		norm := func(s string) string {
			s = strings.ReplaceAll(s, data, "$DATA")
			s = bookingNumber.ReplaceAllStringFunc(s, func(n string) string {
				if n == "BO-ZZZZZZZZ" {
					return n // one the steps make up
				}
				if _, ok := numbers[n]; !ok {
					real = append(real, n)
					numbers[n] = fmt.Sprintf("$NUMBER%d", len(real))
				}
				return numbers[n]
			})
			return s
		}
		out, errOut = norm(out), norm(errOut)
		if s.loose {
			out, errOut = anyDigits.ReplaceAllString(out, "N"), anyDigits.ReplaceAllString(errOut, "N")
		}
		fmt.Fprintf(&transcript, "$ boxoffice %s\n", quoteArgs(s.args))
		if s.stdin != "" {
			fmt.Fprintf(&transcript, "stdin %q\n", s.stdin)
		}
		fmt.Fprintf(&transcript, "exit %d\n", code)
		if out != "" {
			fmt.Fprintf(&transcript, "--- stdout\n%s", out)
			if !strings.HasSuffix(out, "\n") {
				transcript.WriteString("\n(no newline at end)\n")
			}
		}
		if errOut != "" {
			fmt.Fprintf(&transcript, "--- stderr\n%s", errOut)
			if !strings.HasSuffix(errOut, "\n") {
				transcript.WriteString("\n(no newline at end)\n")
			}
		}
		transcript.WriteString("\n")
	}
	path := filepath.Join("testdata", "cli", name+".golden")
	if *update {
		if err := os.WriteFile(path, transcript.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test . -run Golden -update)", err)
	}
	if got := transcript.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("the transcript differs from %s (run with -update if the change is intended):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// goldenExec runs one command line with the built binary at the golden
// clock and returns its exit code and output. The clock is the
// environment of the binary's process, not of the test's, so the golden
// tests run side by side.
func goldenExec(t *testing.T, args []string, stdin string) (int, string, string) {
	t.Helper()
	return clitest.Command(clitest.Binary(t), []string{"BOXOFFICE_NOW=" + goldenClock, "TZ=UTC"}, stdin, args...)
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \"'\\|*?<>&;") || strconv.Quote(a) != `"`+a+`"` {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}

// lineDiff names the first lines where want and got part.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 12; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

// TestGolden_Demo: the demo cinema, every command's text and JSON, its
// mistakes and refusals.
func TestGolden_Demo(t *testing.T) {
	t.Parallel()
	goldenRun(t, "demo", []goldenStep{
		cmd("init"),
		cmd("init"),
		cmd("init", "extra"),
		cmd("init", "--demo-history", "-1"),
		cmd("init", "--no-demo", "--demo-history", "3"),

		cmd("shows"),
		cmd("shows", "--json"),
		cmd("shows", "--date", "2026-12-02", "--json"),
		cmd("shows", "--date", "2026-12-25"),
		cmd("shows", "--date", "2026-12-25", "--json"),
		cmd("shows", "--date", "tomorrow"),
		cmd("shows", "--date"),
		cmd("shows", "extra"),
		cmd("shows", "--frob"),
		cmd("shows", "--json", "--frob"),
		cmd("shows", "--frob", "--json"),
		cmd("shows", "--json=maybe"),
		cmd("shows", "--sync", "fast"),
		cmd("--json", "shows", "--date=2026-12-02"),
		cmd("shows", "--date", "2026-12-02", "--data", "$DATA", "--json"),

		cmd("seats", "13"),
		cmd("seats", "13", "--json"),
		cmd("seats"),
		cmd("seats", "abc"),
		cmd("seats", "999"),
		cmd("seats", "999", "--json"),

		// Cash needs the command line's shift.
		cmd("sell", "13", "A1"),
		cmd("shift", "open"),
		cmd("shift", "open", "--float", "lots"),
		cmd("shift", "open", "--float", "100"),
		cmd("shift", "open", "--float", "100"),

		cmd("sell", "13", "A1", "A2", "--tendered", "30", "--name", "Ann Lee", "--phone", "0123 456789", "--json"),
		cmd("sell", "13", "A2", "--json"),
		cmd("sell", "13", "a2", "a3"),
		cmd("sell", "13", "--best", "4", "--type", "child"),
		cmd("sell", "--pay", "card", "13", "--best", "2", "--key", "retry-1", "--json"),
		cmd("sell", "13", "--best", "2", "--key", "retry-1", "--pay", "card", "--json"),
		cmd("sell", "13", "E1", "--type", "senior", "--pay", "card", "--name", "Bob"),
		cmd("sell", "13", "--best", "2", "--wheelchair", "1", "--tendered", "20.00"),
		cmd("sell", "13"),
		cmd("sell", "abc", "A1"),
		cmd("sell", "13", "B1", "--pay", "cheque"),
		cmd("sell", "13", "B1", "--pay", "card", "--tendered", "20"),
		cmd("sell", "13", "B1", "--tendered", "lots"),
		cmd("sell", "13", "B1", "--tendered", "12.505"),
		cmd("sell", "13", "B1", "--tendered", "5"),
		cmd("sell", "13", "B1", "--tendered", "5", "--json"),
		cmd("sell", "13", "B1", "--type", "vip"),
		cmd("sell", "13", "B1", "--key", strings.Repeat("k", 129)),
		cmd("sell", "13", "Z99"),
		cmd("sell", "13", "B1", "--best", "2"),
		cmd("sell", "13", "--best", "30"),
		cmd("sell", "13", "--best", "-1"),
		cmd("sell", "13", "B1", "--wheelchair", "1"),
		cmd("sell", "999", "A1"),
		cmd("sell", "999", "A1", "--json"),
		cmd("sell", "1", "A1"),
		cmd("sell", "1", "A1", "--json"),
		cmd("sell", "13", "B1", "--best"),

		cmd("booking", "$NUMBER1"),
		cmd("booking", "$NUMBER1", "--json"),
		cmd("booking", "BO-ZZZZZZZZ"),
		cmd("booking", "BO-ZZZZZZZZ", "--json"),
		cmd("booking"),

		cmd("admit", "$CODE1"),
		cmd("admit", "$CODE1"),
		cmd("admit", "$CODE2", "--json"),
		cmd("admit", "$CODE2", "--json"),
		cmd("admit", "NOTACODE"),
		cmd("admit", "NOTACODE", "--json"),
		cmd("admit"),

		cmd("cancel", "$NUMBER2", "--reason", "changed plans", "--json"),
		cmd("cancel", "$NUMBER2"),
		cmd("cancel", "$NUMBER2", "--json"),
		cmd("booking", "$NUMBER2"),
		cmd("cancel", "BO-ZZZZZZZZ"),
		cmd("cancel"),
		cmd("seats", "13"),

		cmd("waitlist", "13"),
		cmd("waitlist", "13", "--json"),
		cmd("waitlist", "add", "13", "--name", "Ann", "--phone", "0123"),
		cmd("waitlist", "remove", "x"),
		cmd("waitlist", "remove", "999"),
		cmd("waitlist", "x"),
		cmd("waitlist"),
		cmd("waitlist", "add", "13", "14"),

		cmd("price", "list"),
		cmd("price", "list", "--json"),
		cmd("price", "set", "adult", "Adult", "13.00"),
		cmd("price", "set", "adult", "Adult", "1e2"),
		cmd("price", "set", "adult", "Adult"),
		cmd("price", "set", "vip", "VIP \x1b[31mred", "20"),
		cmd("price", "list"),
		cmd("price", "frob"),
		cmd("price"),

		// Prices by seat kind and list; a show on the evening list.
		cmd("price", "set", "adult", "--seat", "premium", "15.50"),
		cmd("price", "set", "adult", "--list", "late", "--seat", "premium", "16.50"),
		cmd("price", "set", "adult", "--seat", "royal", "1"),
		cmd("price", "set", "adult", "--seat", "standard", "1"),
		cmd("price", "set", "adult", "--list", "late night", "1"),
		cmd("price", "set", "nobody", "--seat", "premium", "1"),
		cmd("price", "set", "adult", "--seat", "premium"),
		cmd("price", "list", "--list", "evening"),
		cmd("price", "list", "--list", "evening", "--json"),
		cmd("price", "list", "--list", "nowhere"),
		cmd("show", "price-list", "9", "evening"),
		cmd("show", "price-list", "9", "nowhere"),
		cmd("show", "price-list", "999", "evening"),
		cmd("show", "price-list", "9"),
		cmd("sell", "9", "H5", "A5", "--pay", "card"),
		cmd("sell", "9", "--best", "2", "--pay", "card", "--json"),
		cmd("sell", "9", "--best", "2", "--premium", "--pay", "card"),
		cmd("sell", "9", "A1", "--premium"),
		cmd("show", "price-list", "9", "standing"),
		cmd("sell", "9", "H6", "--tendered", "14"),
		cmd("sell", "9", "H6", "--tendered", "16", "--json"),
		cmd("show", "add", "--film", "2", "--hall", "Studio", "--at", "2026-12-09 18:00", "--price-list", "evening"),
		cmd("show", "add", "--film", "2", "--hall", "Studio", "--at", "2026-12-10 18:00", "--price-list", "nowhere"),
		cmd("show", "add", "--film", "2", "--hall", "Studio", "--at", "2026-12-10 18:00", "--price-list", "bad list"),

		cmd("film", "list"),
		cmd("film", "list", "--json"),
		cmd("film", "add"),
		cmd("film", "frob"),
		cmd("hall", "list"),
		cmd("hall", "list", "--json"),
		cmd("hall"),
		cmd("hall", "frob"),
		cmd("show", "add", "--film", "1", "--hall", "Studio", "--at", "2026-12-01 18:00"),
		cmd("show", "add", "--film", "1", "--hall", "Nowhere", "--at", "2026-12-09 18:00"),
		cmd("show", "add", "--film", "1", "--hall", "1", "--at", "2026-12-09 09:00"),
		cmd("show", "add", "--film", "1", "--hall", "Grand", "--at", "tonight"),
		cmd("show", "add", "--film", "x"),
		cmd("show", "list"),

		withStdin("4321\n", "staff", "add", "Maria", "--role", "clerk", "--key-file", "testdata/cli/clerk.pub"),
		withStdin("2468\n", "staff", "add", "Dora", "--role", "door"),
		cmd("staff", "add", "Nopin", "--role", "clerk"),
		withStdin("1234\n", "staff", "add", "X", "--role", "emperor"),
		withStdin("1234\n", "staff", "add", "X", "--role", "emperor", "--json"),
		withStdin("1234\n", "staff", "add", "Maria", "--role", "clerk"),
		withStdin("1234\n", "staff", "add", "Y", "--role", "clerk", "--key-file", "testdata/cli/missing.pub"),
		withStdin("1234\n", "staff", "add", "Y", "--role", "clerk", "--key-file", "testdata/cli/junk.pub"),
		cmd("staff", "add", "Z"),
		cmd("staff", "list"),
		cmd("staff", "list", "--json"),
		cmd("staff", "role", "Maria", "supervisor"),
		cmd("staff", "role", "Maria", "emperor"),
		cmd("staff", "role", "Maria"),
		cmd("staff", "disable", "Maria"),
		cmd("staff", "list"),
		cmd("staff", "enable", "Maria"),
		cmd("staff", "unlock", "Maria"),
		cmd("staff", "unlock", "Nobody"),
		cmd("staff", "disable", "Nobody", "--json"),
		withStdin("12\n", "staff", "pin", "Maria"),
		cmd("staff", "pin", "Maria"),
		withStdin("8642\n", "staff", "pin", "Maria"),
		cmd("staff", "frob"),
		cmd("staff"),

		cmd("terminal", "add", "till-1", "--key-file", "testdata/cli/till.pub"),
		cmd("terminal", "add", "till-2", "--key-file", "testdata/cli/clerk.pub"),
		cmd("terminal", "add", "till-3", "--key-file", "testdata/cli/till.pub"),
		cmd("terminal", "add", "till-4"),
		cmd("terminal", "list"),
		cmd("terminal", "list", "--json"),
		cmd("terminal", "remove", "till-1"),
		cmd("terminal", "remove", "till-1"),
		cmd("terminal", "list", "--json"),
		cmd("terminal", "frob"),
		cmd("terminal"),

		cmd("init", "--demo-history", "2"),
		cmd("bench", "extra"),
		cmd("bench", "--clients", "x"),
		cmd("bench", "--clients", "0"),
		cmd("bench", "--scale", "--days", "3"),
		cmd("bench", "--sync", "fast"),
		cmd("bench", "--duration", "soon"),
		cmd("serve", "extra"),
		cmd("serve", "--hold-grace", "x"),
		cmd("--idle-signout", "-1m"),

		// Shifts and refunds.
		cmd("refund", "$NUMBER1", "A2", "--reason", "one went home"),
		cmd("refund", "$NUMBER3", "e7", "--reason", "one went home"),
		cmd("refund", "$NUMBER3", "E7", "--json"),
		cmd("refund", "$NUMBER1", "Z9"),
		cmd("refund", "$NUMBER1"),
		cmd("refund", "BO-ZZZZZZZZ", "A1", "--json"),
		cmd("shift", "list"),
		cmd("report", "shift", "1"),
		cmd("report", "shift", "1", "--csv"),
		cmd("report", "shift", "1", "--csv", "--json"),
		cmd("shift", "close"),
		cmd("shift", "close", "--counted", "120", "--breakdown", "50x3"),
		cmd("shift", "close", "--breakdown", "50x3 lots"),
		cmd("shift", "close", "--counted", "150", "--breakdown", "50x3"),
		cmd("shift", "close", "--counted", "150"),
		cmd("report", "shift", "1", "--json"),
		cmd("report", "shift", "99"),
		cmd("report", "shift"),
		cmd("shift", "reopen", "1"),
		cmd("shift", "reopen", "1", "--reason", "a note under the tray"),
		cmd("shift", "reopen", "1", "--reason", "again"),
		cmd("shift", "list", "--json"),
		cmd("shift"),
		cmd("report"),
	})
}

// TestGolden_Usage: help and the mistakes answered with it. Unlike the
// other goldens, this one changes when the help text does.
func TestGolden_Usage(t *testing.T) {
	t.Parallel()
	goldenRun(t, "usage", []goldenStep{
		cmd("help"),
		cmd("help", "shows"),
		cmd("shows", "--help"),
		cmd("staff", "-h"),
		cmd("frobnicate"),
		cmd("--idle-signout", "x"),
	})
}

// TestGolden_OwnCinema: a cinema set up by hand from an empty database,
// sold out, with a waiting list.
func TestGolden_OwnCinema(t *testing.T) {
	t.Parallel()
	goldenRun(t, "own-cinema", []goldenStep{
		cmd("init", "--no-demo"),
		cmd("init", "--no-demo"),
		cmd("shows"),
		cmd("hall", "check", "testdata/cli/small.hall", "testdata/cli/bad.hall", "testdata/cli/missing.hall"),
		cmd("hall", "check", "testdata/cli/small.hall"),
		cmd("hall", "check"),
		cmd("hall", "add", "testdata/cli/bad.hall"),
		cmd("hall", "add", "testdata/cli/small.hall"),
		cmd("hall", "add", "testdata/cli/small.hall"),
		cmd("hall", "list"),
		cmd("hall", "list", "--json"),
		cmd("film", "add", "Our Film", "--minutes", "95", "--rating", "12A"),
		cmd("film", "add", "No Minutes"),
		cmd("film", "add", "Bad Minutes", "--minutes", "ninety"),
		cmd("film", "list"),
		cmd("film", "list", "--json"),
		cmd("show", "add", "--film", "1", "--hall", "small", "--at", "2026-12-02 19:30"),
		cmd("show", "add", "--film", "1", "--hall", "Small", "--at", "2026-12-02 20:00"),
		cmd("show", "add", "--film", "9", "--hall", "Small", "--at", "2026-12-03 20:00"),
		cmd("show", "add", "--film", "1", "--hall", "Small", "--at", "2026-12-04 20:00"),
		cmd("show", "add", "--film", "1", "--hall", "Small", "--at", "2026-11-30 20:00"), // the past: refused
		cmd("shows", "--date", "2026-12-02"),
		cmd("price", "list"),
		cmd("price", "list", "--json"),
		cmd("shift", "open", "--float", "100"),
		cmd("sell", "1", "A1"),
		cmd("price", "set", "adult", "Adult", "11.00"),
		cmd("price", "set", "child", "Child", "7,50"),
		cmd("price", "set", "free", "Free", "0"),
		cmd("price", "list"),
		cmd("sell", "1", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "--type", "child", "--tendered", "100", "--json"),
		cmd("waitlist", "add", "1", "--name", "Ann Lee", "--phone", "0123", "--seats", "2"),
		cmd("sell", "1", "--best", "1", "--wheelchair", "1", "--pay", "card"),
		cmd("sell", "1", "B1", "B2", "B3", "B4", "B5", "B7", "B8", "B9", "--pay", "card"),
		cmd("sell", "1", "B1", "B2", "B3", "B4", "B5", "B7", "B8", "B9", "--pay", "card", "--allow-single"),
		cmd("sell", "1", "--best", "3"),
		cmd("sell", "1", "B10", "--json"),
		cmd("seats", "1"),
		cmd("seats", "1", "--json"),
		cmd("sell", "1", "B1"),
		cmd("sell", "1", "--best", "2", "--json"),
		cmd("waitlist", "add", "1", "--name", "Ann Lee\x1b[31m", "--phone", "0123 456", "--seats", "2"),
		cmd("waitlist", "add", "1", "--name", "Bob"),
		cmd("waitlist", "add", "1", "--name", "Bob", "--phone", "0456", "--seats", "0"),
		cmd("waitlist", "add", "1", "--name", "Bob", "--phone", "0456"),
		cmd("waitlist", "1"),
		cmd("waitlist", "1", "--json"),
		cmd("waitlist", "remove", "1"),
		cmd("waitlist", "remove", "1"),
		cmd("waitlist", "remove", "1", "--json"),
		cmd("waitlist", "1", "--json"),
		cmd("waitlist", "2"),

		// manager screens: the programme changed after it was set.
		cmd("film", "edit", "1", "--minutes", "100", "--title", "Our Film (director's cut)"),
		cmd("film", "edit", "1", "--minutes", "900"),
		cmd("film", "edit", "1"),
		cmd("film", "edit", "x", "--minutes", "90"),
		cmd("show", "move", "2", "--at", "2026-12-02 19:30"),
		cmd("show", "move", "2", "--at", "2026-11-30 19:30"),
		cmd("show", "move", "2", "--at", "tomorrow"),
		cmd("show", "move", "2", "--at", "2026-12-05 21:00", "--hall", "Nowhere"),
		cmd("show", "move", "2", "--at", "2026-12-05 21:00"),
		cmd("show", "move", "1", "--at", "2026-12-06 21:00", "--hall", "Small"),
		cmd("film", "retire", "1"),
		cmd("film", "retire", "1"),
		cmd("show", "add", "--film", "1", "--hall", "Small", "--at", "2026-12-09 20:00"),
		cmd("film", "list"),
		cmd("film", "list", "--json"),
		cmd("shows", "--date", "2026-12-05"),
	})
}

// TestGolden_History: init --demo-history on a new data dir, then its
// refusals. The generator's counts vary with the order its counters
// commit in, so its digits are not compared.
func TestGolden_History(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("generates history")
	}
	goldenRun(t, "history", []goldenStep{
		{args: []string{"init", "--demo-history", "2"}, loose: true},
		cmd("init", "--demo-history", "2"),
		cmd("init", "--demo-history", "99999"),
		{args: []string{"shows", "--date", "2026-11-30"}, loose: true},
	})
}
