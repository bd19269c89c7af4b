package booking_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"boxoffice/booking"
)

func TestParseLayout_OK(t *testing.T) {
	t.Run("Basic", func(t *testing.T) {
		src := "# A small room\nhall: Studio 1\n\nA | ss.s\n  # comment\nB | pswc  # back row\n"
		h, err := booking.ParseLayout("studio.hall", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "Studio 1" {
			t.Errorf("Name = %q", h.Name)
		}
		if got := strings.Join(h.Rows, ","); got != "A,B" {
			t.Errorf("Rows = %s", got)
		}
		if h.Width != 4 {
			t.Errorf("Width = %d, want 4", h.Width)
		}
		want := []booking.Seat{
			{Label: "A1", RowTag: "A", Number: 1, Row: 0, Col: 0, Kind: booking.Standard},
			{Label: "A2", RowTag: "A", Number: 2, Row: 0, Col: 1, Kind: booking.Standard},
			{Label: "A3", RowTag: "A", Number: 3, Row: 0, Col: 3, Kind: booking.Standard},
			{Label: "B1", RowTag: "B", Number: 1, Row: 1, Col: 0, Kind: booking.Premium},
			{Label: "B2", RowTag: "B", Number: 2, Row: 1, Col: 1, Kind: booking.Standard},
			{Label: "B3", RowTag: "B", Number: 3, Row: 1, Col: 2, Kind: booking.Wheelchair},
			{Label: "B4", RowTag: "B", Number: 4, Row: 1, Col: 3, Kind: booking.Companion},
		}
		if !equalSeats(h.Seats, want) {
			t.Errorf("Seats =\n%v\nwant\n%v", h.Seats, want)
		}
	})

	t.Run("RightToLeft", func(t *testing.T) {
		src := "hall: X\nnumbering: Right-To-Left\nAA | s..ss\n"
		h, err := booking.ParseLayout("x.hall", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		got := seatSummary(h)
		if want := "AA3@0 AA2@3 AA1@4"; got != want {
			t.Errorf("seats = %s, want %s", got, want)
		}
	})

	t.Run("Spacing", func(t *testing.T) {
		// "A |ss" and "A | ss" are the same row; later spaces are gaps;
		// the width counts leading gaps but not trailing spaces or comments.
		src := "\xef\xbb\xbfhall:   Big  Room  \r\n  A |ss  s   \r\nBB   | ..s #x\r\n12 | s"
		h, err := booking.ParseLayout("x.hall", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "Big  Room" {
			t.Errorf("Name = %q", h.Name)
		}
		if got, want := seatSummary(h), "A1@0 A2@1 A3@4 BB1@2 121@0"; got != want {
			t.Errorf("seats = %s, want %s", got, want)
		}
		if h.Width != 5 {
			t.Errorf("Width = %d, want 5", h.Width)
		}
	})

	t.Run("Limits", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("hall: " + strings.Repeat("n", 60) + "\n")
		for i := range 60 {
			fmt.Fprintf(&b, "%c%c | %s\n", 'A'+i/26, 'A'+i%26, strings.Repeat("s", 120))
		}
		h, err := booking.ParseLayout("big.hall", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if h.Capacity() != 60*120 || h.Width != 120 || len(h.Rows) != 60 {
			t.Errorf("capacity %d width %d rows %d", h.Capacity(), h.Width, len(h.Rows))
		}
	})

	t.Run("UnicodeName", func(t *testing.T) {
		h, err := booking.ParseLayout("x.hall", []byte("hall: Salle Lumière\nA | s\n"))
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "Salle Lumière" {
			t.Errorf("Name = %q", h.Name)
		}
	})
}

func TestParseLayout_Err(t *testing.T) {
	long := strings.Repeat("s", 121)
	var manyRows strings.Builder
	manyRows.WriteString("hall: X\n")
	for i := range 61 {
		fmt.Fprintf(&manyRows, "%d | s\n", i+1)
	}
	tests := []struct {
		name, src, want string
	}{
		{"Empty", "", "f.hall:1:1: missing \"hall: NAME\" line"},
		{"OnlyComments", "# nothing\n\n", "f.hall:1:1: missing \"hall: NAME\" line"},
		{"NoRows", "hall: X\n", "f.hall:2:1: no rows"},
		{"NoRowsNoNewline", "hall: X", "f.hall:1:8: no rows"},
		{"RowBeforeHall", "# x\nA | ss\nhall: X\n", "f.hall:2:1: row before the \"hall: NAME\" line"},
		{"DuplicateHall", "hall: X\n hall: Y\nA | s\n", "f.hall:2:2: duplicate hall setting (first on line 1)"},
		{"EmptyName", "hall:   \nA | s\n", "f.hall:1:9: missing hall name"},
		{"LongName", "hall: " + strings.Repeat("x", 61) + "\nA | s\n", "f.hall:1:67: hall name is too long"},
		{"UnknownSetting", "hall: X\nscreen: front\n", "f.hall:2:1: unknown setting \"screen\""},
		{"BadNumbering", "hall: X\nnumbering:  up\n", "f.hall:2:13: unknown numbering \"up\""},
		{"EmptyNumbering", "hall: X\nnumbering:\n", "f.hall:2:11: missing numbering"},
		{"DuplicateNumbering", "hall: X\nnumbering: left-to-right\nnumbering: right-to-left\n", "f.hall:3:1: duplicate numbering setting (first on line 2)"},
		{"SettingAfterRow", "hall: X\nA | s\nnumbering: right-to-left\n", "f.hall:3:1: setting \"numbering\" after the first row"},
		{"Tab", "hall: X\nA |\tss\n", "f.hall:2:4: tab character"},
		{"TabInComment", "hall: X\n#\tnote\nA | s\n", "f.hall:2:2: tab character"},
		{"Control", "hall: X\x1b[31m\nA | s\n", "f.hall:1:8: non-printable character U+001B"},
		{"C1", "hall: X\u009b\nA | s\n", "f.hall:1:8: non-printable character U+009B"},
		{"Bidi", "hall: ab\u202ec\nA | s\n", "f.hall:1:9: non-printable character U+202E"},
		{"NBSP", "hall: X\nA |\u00a0s\n", "f.hall:2:4: non-printable character U+00A0"},
		{"BadUTF8", "hall: X\nA | s\xffs\n", "f.hall:2:6: invalid UTF-8"},
		{"BadUTF8AfterRune", "hall: é\xff\n", "f.hall:1:8: invalid UTF-8"},
		{"ReplacementChar", "hall: X\uFFFD\n", "f.hall:1:8: replacement character"},
		{"LoneCR", "hall: X\rA | s\n", "f.hall:1:8: carriage return"},
		{"UnknownSeat", "hall: X\nA | ssxs\n", "f.hall:2:7: unexpected \"x\" in row A: expected s, p, w, c, '.' or space"},
		{"UpperSeat", "hall: X\nA | sS\n", "f.hall:2:6: unexpected \"S\" in row A"},
		{"UnicodeSeat", "hall: X\nA | sé\n", "f.hall:2:6: unexpected \"é\" (U+00E9) in row A"},
		{"LabelTooLong", "hall: X\n  ABCD | s\n", "f.hall:2:3: row label \"ABCD\" is too long"},
		{"LabelBadChar", "hall: X\nA-1 | s\n", "f.hall:2:2: unexpected \"-\" in \"A\": row labels use only"},
		{"LabelUnicode", "hall: X\nÄ | s\n", "f.hall:2:1: unexpected \"Ä\" (U+00C4): expected a row"},
		{"MissingLabel", "hall: X\n  | s\n", "f.hall:2:3: missing row label before '|'"},
		{"MissingKey", "hall: X\n : s\n", "f.hall:2:2: missing setting name before ':'"},
		{"NoSeparator", "hall: X\nA  ssss\n", "f.hall:2:4: unexpected \"s\" after \"A\": expected ':' for a setting or '|' for a row"},
		{"WordOnly", "hall: X\nscreen\n", "f.hall:2:7: expected ':' for a setting or '|' for a row after \"screen\""},
		{"Junk", "hall: X\n* A | s\n", "f.hall:2:1: unexpected \"*\""},
		{"DuplicateRow", "hall: X\nA | s\nB | s\na | s\n", "f.hall:4:1: duplicate row \"a\" (first on line 2)"},
		{"EmptyRow", "hall: X\nA | s\nB |  \n", "f.hall:3:5: row B has no seats"},
		{"GapRow", "hall: X\nA | s\nB | ...\n", "f.hall:3:5: row B has no seats"},
		{"BarOnly", "hall: X\nA |\n", "f.hall:2:4: row A has no seats"},
		{"TooWide", "hall: X\nA | " + long + "\n", "f.hall:2:125: row A is too wide (at most 120 columns)"},
		{"TooManyRows", manyRows.String(), "f.hall:62:1: too many rows (at most 60)"},
		{"LabelClash", "hall: X\nA | sssssssssss\nA1 | ss\n", "f.hall:3:6: seat A11 of row A1 reads the same as seat 11 of row A (line 2)"},
		{"LabelClashCase", "hall: X\nb1 | s\nB | sssssssssss\n", "f.hall:3:15: seat B11 of row B reads the same as seat 1 of row b1 (line 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := booking.ParseLayout("f.hall", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; hall %+v", h)
			}
			var e *booking.Error
			if !errors.As(err, &e) || e.Code != booking.EInvalid {
				t.Fatalf("error %#v is not an invalid *booking.Error", err)
			}
			if !strings.HasPrefix(e.Message, tt.want) {
				t.Errorf("message\n %s\nwant prefix\n %s", e.Message, tt.want)
			}
			if h != nil {
				t.Errorf("hall %+v returned with an error", h)
			}
		})
	}
}

func TestParseLayout_Assets(t *testing.T) {
	files, err := filepath.Glob("../assets/halls/*.hall")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := booking.ParseLayout(filepath.Base(f), src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkHall(t, h)
	}
}

var layoutErrRE = regexp.MustCompile(`^f\.hall:([0-9]+):([0-9]+): \S`)

func FuzzParseLayout(f *testing.F) {
	f.Add([]byte("hall: Studio\nA | ssss..ssss\nB | pppp..pppp\nC | wc......cw\n"))
	f.Add([]byte("# c\nhall: X\nnumbering: right-to-left\n\n 1 |s s\n10 | .s.\n"))
	f.Add([]byte("hall: X\nA | sssssssssss\nA1 | ss\n"))
	f.Add([]byte("\xef\xbb\xbfhall: é\r\nA | s # x\r\n"))
	f.Add([]byte("hall: X\nA |\tss\n"))
	f.Add([]byte(""))
	if files, err := filepath.Glob("../assets/halls/*.hall"); err == nil {
		for _, name := range files {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		h, err := booking.ParseLayout("f.hall", src)
		if err != nil {
			if h != nil {
				t.Fatal("hall and error both returned")
			}
			var e *booking.Error
			if !errors.As(err, &e) || e.Code != booking.EInvalid {
				t.Fatalf("error %#v is not an invalid *booking.Error", err)
			}
			m := layoutErrRE.FindStringSubmatch(e.Message)
			if m == nil {
				t.Fatalf("message %q does not start with f.hall:LINE:COL: ", e.Message)
			}
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			lines := strings.Split(string(src), "\n")
			if line < 1 || line > len(lines) {
				t.Fatalf("message %q: line %d outside 1..%d", e.Message, line, len(lines))
			}
			if n := utf8.RuneCountInString(lines[line-1]); col < 1 || col > n+1 {
				t.Fatalf("message %q: col %d outside 1..%d", e.Message, col, n+1)
			}
			return
		}
		checkHall(t, h)
	})
}

// checkHall tests what every parsed hall promises: a name, rows, seats
// unique by label and by position, ordered by row and column, inside Width.
func checkHall(t *testing.T, h *booking.Hall) {
	t.Helper()
	if h.Name == "" || len(h.Rows) == 0 || len(h.Seats) == 0 {
		t.Fatalf("hall %q has %d rows and %d seats", h.Name, len(h.Rows), len(h.Seats))
	}
	labels := map[string]bool{}
	rows := map[string]bool{}
	for _, r := range h.Rows {
		if rows[strings.ToUpper(r)] {
			t.Fatalf("row %q twice", r)
		}
		rows[strings.ToUpper(r)] = true
	}
	type pos struct{ row, col int }
	places := map[pos]bool{}
	for i, s := range h.Seats {
		if s.ID != 0 {
			t.Fatalf("seat %s has ID %d", s.Label, s.ID)
		}
		if s.Row < 0 || s.Row >= len(h.Rows) || h.Rows[s.Row] != s.RowTag {
			t.Fatalf("seat %s: row %d tag %q, rows %v", s.Label, s.Row, s.RowTag, h.Rows)
		}
		if s.Label != s.RowTag+strconv.Itoa(s.Number) || s.Number < 1 {
			t.Fatalf("seat %s: tag %q number %d", s.Label, s.RowTag, s.Number)
		}
		if s.Col < 0 || s.Col >= h.Width {
			t.Fatalf("seat %s: col %d, width %d", s.Label, s.Col, h.Width)
		}
		if s.Kind < booking.Standard || s.Kind > booking.Companion {
			t.Fatalf("seat %s: kind %v", s.Label, s.Kind)
		}
		key := strings.ToUpper(s.Label)
		if labels[key] {
			t.Fatalf("label %s twice", s.Label)
		}
		labels[key] = true
		if places[pos{s.Row, s.Col}] {
			t.Fatalf("two seats at row %d col %d", s.Row, s.Col)
		}
		places[pos{s.Row, s.Col}] = true
		if i > 0 {
			p := h.Seats[i-1]
			if p.Row > s.Row || p.Row == s.Row && p.Col >= s.Col {
				t.Fatalf("seat %s (%d,%d) after %s (%d,%d)", s.Label, s.Row, s.Col, p.Label, p.Row, p.Col)
			}
		}
	}
	for r := range h.Rows {
		found := false
		for _, s := range h.Seats {
			found = found || s.Row == r
		}
		if !found {
			t.Fatalf("row %s has no seats", h.Rows[r])
		}
	}
	if len(h.Rows) > 60 || h.Width > 120 {
		t.Fatalf("hall %d rows x %d cols is over the limits", len(h.Rows), h.Width)
	}
}

func equalSeats(a, b []booking.Seat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func seatSummary(h *booking.Hall) string {
	var parts []string
	for _, s := range h.Seats {
		parts = append(parts, fmt.Sprintf("%s@%d", s.Label, s.Col))
	}
	return strings.Join(parts, " ")
}

// Every mistake of a file is listed, in line order, each once: a line
// with a mistake is left out and the rest still checked, without the
// knock-on mistakes of the lines left out (a refused hall line makes no
// row "before the hall line", a refused row keeps its name). Before,
// only the first was said, one fix and one run at a time.
func TestParseLayout_EveryMistake(t *testing.T) {
	src := strings.Join([]string{
		"hall: " + strings.Repeat("x", 61), // 1: too long a name
		"numbering: upwards",               // 2
		"A | ssxs",                         // 3
		"A | ssss",                         // 4: A again
		"B |\tss",                          // 5
		"C | ssss",                         // 6: fine
		"screen: front",                    // 7
		"D | ....",                         // 8
	}, "\n")
	_, err := booking.ParseLayout("f.hall", []byte(src))
	got := strings.Split(booking.ErrorMessage(err), "\n")
	want := []string{
		"f.hall:1:67: hall name is too long",
		"f.hall:2:12: unknown numbering \"upwards\"",
		"f.hall:3:7: unexpected \"x\" in row A",
		"f.hall:4:1: duplicate row \"A\" (first on line 3)",
		"f.hall:5:4: tab character",
		"f.hall:7:1: unknown setting \"screen\"",
		"f.hall:8:5: row D has no seats",
	}
	if booking.ErrorCode(err) != booking.EInvalid || len(got) != len(want) {
		t.Fatalf("%d mistakes, want %d:\n%s", len(got), len(want), booking.ErrorMessage(err))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("mistake %d: %q, want %q…", i+1, got[i], want[i])
		}
	}

	// A file of mistakes lists twenty and says there are more.
	var many strings.Builder
	many.WriteString("hall: X\n")
	for i := range 40 {
		fmt.Fprintf(&many, "R%d | sxs\n", i)
	}
	_, err = booking.ParseLayout("f.hall", []byte(many.String()))
	lines := strings.Split(booking.ErrorMessage(err), "\n")
	if len(lines) != 21 || lines[20] != "f.hall: more mistakes after line 21 are not listed: fix these first" {
		t.Fatalf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
}

// ParseLayoutFile quotes a file only once it starts like a layout; any
// other file is refused by line and column alone.
func TestParseLayoutFile(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"numbering: right-to-left\nhall: X\nA | ss\n", ""},
		{"# a comment\n\n  hall: X\nA | ss\n", ""},
		{"hall: X\nA | s?\n", `f:2:6: unexpected "?" in row A`},
		{"Sekr1t words here\n", "f:1:1: not a hall layout"},
		{"\n\n   root:x:0:0\n", "f:3:4: not a hall layout"},
		{"# \x00 Sekr1t\nhall: X\n", "f:1:1: not a hall layout"},
		{"\xff\xfeSekr1t", "f:1:1: not a hall layout"},
		{"hall: X\n" + strings.Repeat("# Sekr1t\n", booking.MaxLayoutBytes/8), "f: larger than 64 KiB: not a hall layout"},
	} {
		_, err := booking.ParseLayoutFile("f", []byte(c.src))
		switch msg := booking.ErrorMessage(err); {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.want != "" && (!strings.HasPrefix(msg, c.want) || strings.Contains(msg, "Sekr1t") || strings.Contains(msg, "root")):
			t.Errorf("%q: %q, want %q", c.src, msg, c.want)
		}
	}
}
