package booking

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a hall layout. They keep a seat map drawable in a terminal and
// a typo (a runaway row, a pasted document) from becoming a hall.
const (
	maxLayoutRows = 60  // rows per hall
	maxLayoutCols = 120 // columns per row, aisles and gaps included
	maxHallName   = 60  // characters in a hall's name
	maxRowLabel   = 3   // letters or digits in a row label

	// MaxLayoutBytes bounds a layout file: 60 rows of 120 columns with a
	// comment on every line is far less; a file any larger is not a
	// layout, and is refused before it is read.
	MaxLayoutBytes = 64 << 10

	// maxLayoutMistakes is how many mistakes of one file are listed: a
	// manager fixes a handful at a time, and a file that is not a layout
	// at all must not fill the screen.
	maxLayoutMistakes = 20
)

// Words and phrases of the layout format.
const (
	layoutHall      = "hall"
	layoutNumbering = "numbering"
	numLeftToRight  = "left-to-right"
	numRightToLeft  = "right-to-left"
	layoutSeatChars = "s, p, w, c, '.' or space"
	layoutLineHelp  = "expected a row (A | ssss), a setting (hall: NAME) or a # comment"
	utf8BOM         = "\xef\xbb\xbf"
)

// ParseLayout reads a hall layout, the plain-text plan a cinema manager
// writes by hand (see assets/halls/FORMAT.md):
//
//	# Screen 2: one centre aisle
//	hall: Screen 2
//	numbering: left-to-right
//
//	A | .sssssss..sssssss.
//	B | ssssssss..ssssssss
//	L | sssssscw..wcssssss
//
// Settings come first; then one line per row from the front (nearest the
// screen) to the back. Each character after "| " is one column: s standard,
// p premium, w wheelchair place, c companion seat, '.' or space an aisle or
// gap. Seats are numbered from 1 per row, left to right as the audience
// faces the screen unless "numbering: right-to-left" says otherwise; gaps
// take no number.
//
// The hall it returns has Name, Rows, Width and Seats (ordered by Row, then
// Col); IDs are zero. Every error is an *Error with code EInvalid whose
// Message has a line "filename:line:col: what is wrong" for every mistake
// of the file, in line order (at most maxLayoutMistakes, then a line
// saying there are more), line and column 1-based and pointing at the
// offending character. A line with a mistake is left out and the lines
// after it are still read, so one wrong row costs no other row its check.
func ParseLayout(filename string, src []byte) (*Hall, error) {
	p := &layoutParser{filename: filename, numbering: numLeftToRight, labels: map[string]layoutSeatOrigin{}, rowLine: map[string]int{}}
	return p.parse(src)
}

// ParseLayoutFile is ParseLayout for a file someone named, which may not
// be a layout at all (a typo, or /etc/passwd typed into a form): unless
// the file is no larger than MaxLayoutBytes and starts like a layout —
// clean text whose first line that is not blank or a # comment is a
// setting (hall: or numbering:) — the error says where it stopped and
// that this is not a layout, and never repeats a word of what it read.
// A file that starts like a layout gets ParseLayout's messages.
func ParseLayoutFile(filename string, src []byte) (*Hall, error) {
	if len(src) > MaxLayoutBytes {
		return nil, Errorf(EInvalid, "%s: larger than %d KiB: not a hall layout", filename, MaxLayoutBytes>>10)
	}
	p := &layoutParser{filename: filename}
	for i, raw := range strings.Split(string(src), "\n") {
		n := i + 1
		if i == 0 {
			raw = strings.TrimPrefix(raw, utf8BOM)
		}
		raw = strings.TrimSuffix(raw, "\r")
		if _, err := p.checkChars(n, raw); err != nil {
			return nil, p.notLayout(n, 1)
		}
		at := strings.IndexFunc(raw, func(r rune) bool { return r != ' ' })
		if at < 0 || raw[at] == '#' {
			continue
		}
		key, _, ok := strings.Cut(raw[at:], ":")
		if key = strings.ToLower(strings.TrimRight(key, " ")); !ok || key != layoutHall && key != layoutNumbering {
			return nil, p.notLayout(n, utf8.RuneCountInString(raw[:at])+1)
		}
		break
	}
	return ParseLayout(filename, src)
}

// notLayout says a file is not a hall layout, and where that shows.
func (p *layoutParser) notLayout(line, col int) error {
	return p.errorf(line, col, "not a hall layout: a layout is text that starts with a %q line", "hall: NAME")
}

// layoutSeatOrigin remembers where a seat label came from, to explain a clash
// such as row "A1" seat 1 and row "A" seat 11, both "A11".
type layoutSeatOrigin struct {
	row    string
	number int
	line   int
}

type layoutParser struct {
	filename     string
	rowBefore    bool // a row before the hall line was reported
	hall         Hall
	hallLine     int // line of the hall setting, 0 before it
	numbering    string
	numberingAt  int // line of the numbering setting, 0 before it
	rowLine      map[string]int
	labels       map[string]layoutSeatOrigin
	lastLine     int // number of lines in the input
	lastLineCols int // characters on the last line
}

func (p *layoutParser) errorf(line, col int, format string, args ...any) error {
	return &Error{Code: EInvalid, Message: fmt.Sprintf("%s:%d:%d: %s", p.filename, line, col, fmt.Sprintf(format, args...))}
}

func (p *layoutParser) parse(src []byte) (*Hall, error) {
	text := string(src)
	lines := strings.Split(text, "\n")
	p.lastLine = len(lines)
	p.lastLineCols = utf8.RuneCountInString(lines[len(lines)-1])
	var mistakes []error
	more := 0 // the line after which mistakes went unlisted; 0 for none
	for i, raw := range lines {
		n := i + 1
		if i == 0 {
			raw = strings.TrimPrefix(raw, utf8BOM)
		}
		raw = strings.TrimSuffix(raw, "\r")
		line, err := p.checkChars(n, raw)
		if err == nil {
			err = p.parseLine(n, line)
		}
		if err == nil {
			continue
		}
		if len(mistakes) == maxLayoutMistakes {
			more = n - 1
			break
		}
		mistakes = append(mistakes, err)
	}
	// A missing hall line or no rows at all are said only of a file with
	// no other mistake: a row before the hall line says the first, and a
	// line refused (the hall's, or every row) would make either a mistake
	// of its own that is not.
	if p.hallLine == 0 && len(mistakes) == 0 {
		mistakes = append(mistakes, p.errorf(1, 1, "missing %q line: a layout starts with the hall's name", "hall: NAME"))
	}
	if len(p.hall.Rows) == 0 && len(mistakes) == 0 {
		mistakes = append(mistakes, p.errorf(p.lastLine, p.lastLineCols+1, "no rows: a hall needs at least one row of seats"))
	}
	if len(mistakes) == 0 {
		h := p.hall
		return &h, nil
	}
	msgs := make([]string, 0, len(mistakes)+1)
	for _, err := range mistakes {
		msgs = append(msgs, ErrorMessage(err))
	}
	if more > 0 {
		msgs = append(msgs, fmt.Sprintf("%s: more mistakes after line %d are not listed: fix these first", p.filename, more))
	}
	return nil, &Error{Code: EInvalid, Message: strings.Join(msgs, "\n")}
}

// checkChars refuses what a terminal or an editor could show in more than
// one way: invalid UTF-8, tabs, control characters, invisible formatters.
// It returns the line as runes, one per column.
func (p *layoutParser) checkChars(n int, s string) ([]rune, error) {
	out := make([]rune, 0, len(s))
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		col := len(out) + 1
		switch {
		case r == utf8.RuneError && size == 1:
			return nil, p.errorf(n, col, "invalid UTF-8")
		case r == '\t':
			return nil, p.errorf(n, col, "tab character: use spaces or '.' for gaps")
		case r == '\r':
			return nil, p.errorf(n, col, "carriage return in the middle of a line")
		case r == unicode.ReplacementChar:
			return nil, p.errorf(n, col, "replacement character U+FFFD: the file was damaged by a wrong encoding")
		case r != ' ' && !unicode.IsPrint(r), isBidiOrFormat(r):
			return nil, p.errorf(n, col, "non-printable character %U", r)
		}
		out = append(out, r)
		s = s[size:]
	}
	return out, nil
}

func isLayoutLabelChar(r rune) bool {
	return 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
}

func layoutSkipSpaces(line []rune, i int) int {
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

// layoutRune names a character for a message.
func layoutRune(r rune) string {
	if r >= utf8.RuneSelf {
		return fmt.Sprintf("%q (%U)", string(r), r)
	}
	return strconv.Quote(string(r))
}

func (p *layoutParser) parseLine(n int, line []rune) error {
	start := layoutSkipSpaces(line, 0)
	if start == len(line) || line[start] == '#' {
		return nil
	}
	end := start
	for end < len(line) && isLayoutLabelChar(line[end]) {
		end++
	}
	word := string(line[start:end])
	sep := layoutSkipSpaces(line, end)
	if sep == len(line) {
		if word == "" {
			return nil // unreachable: a line of spaces was skipped above
		}
		return p.errorf(n, sep+1, "expected ':' for a setting or '|' for a row after %q", word)
	}
	switch r := line[sep]; {
	case r == ':' && word != "":
		return p.parseSetting(n, line, start, word, sep+1)
	case r == '|' && word != "":
		return p.parseRow(n, line, start, word, sep+1)
	case r == '|':
		return p.errorf(n, sep+1, "missing row label before '|'")
	case r == ':':
		return p.errorf(n, sep+1, "missing setting name before ':'")
	case word == "":
		return p.errorf(n, sep+1, "unexpected %s: %s", layoutRune(r), layoutLineHelp)
	case sep == end && unicode.In(r, unicode.L, unicode.N, unicode.Pd):
		return p.errorf(n, sep+1, "unexpected %s in %q: row labels use only A-Z, a-z and 0-9", layoutRune(r), word)
	default:
		return p.errorf(n, sep+1, "unexpected %s after %q: expected ':' for a setting or '|' for a row", layoutRune(r), word)
	}
}

func (p *layoutParser) parseSetting(n int, line []rune, keyAt int, key string, valAt int) error {
	key = strings.ToLower(key)
	if len(p.hall.Rows) > 0 && (key == layoutHall || key == layoutNumbering) {
		return p.errorf(n, keyAt+1, "setting %q after the first row: settings go at the top", key)
	}
	valAt = layoutSkipSpaces(line, valAt)
	valEnd := len(line)
	for valEnd > valAt && line[valEnd-1] == ' ' {
		valEnd--
	}
	value := string(line[valAt:valEnd])
	switch key {
	case layoutHall:
		if p.hallLine != 0 {
			return p.errorf(n, keyAt+1, "duplicate hall setting (first on line %d)", p.hallLine)
		}
		// The line counts as the hall's even when its name is wrong: the
		// rows after it are checked as rows, not refused as before it.
		p.hallLine = n
		if value == "" {
			return p.errorf(n, valAt+1, "missing hall name after 'hall:'")
		}
		if valEnd-valAt > maxHallName {
			return p.errorf(n, valAt+maxHallName+1, "hall name is too long (at most %d characters)", maxHallName)
		}
		p.hall.Name = value
	case layoutNumbering:
		if p.numberingAt != 0 {
			return p.errorf(n, keyAt+1, "duplicate numbering setting (first on line %d)", p.numberingAt)
		}
		switch v := strings.ToLower(value); v {
		case numLeftToRight, numRightToLeft:
			p.numbering = v
		case "":
			return p.errorf(n, valAt+1, "missing numbering: expected %s or %s", numLeftToRight, numRightToLeft)
		default:
			return p.errorf(n, valAt+1, "unknown numbering %q: expected %s or %s", value, numLeftToRight, numRightToLeft)
		}
		p.numberingAt = n
	default:
		return p.errorf(n, keyAt+1, "unknown setting %q: expected %s or %s", key, layoutHall, layoutNumbering)
	}
	return nil
}

func (p *layoutParser) parseRow(n int, line []rune, labelAt int, label string, cellsAt int) error {
	switch {
	case p.hallLine == 0 && p.rowBefore:
		return nil // said once, at the first such row
	case p.hallLine == 0:
		p.rowBefore = true
		return p.errorf(n, labelAt+1, "row before the %q line: the layout starts with the hall's name", "hall: NAME")
	case len(label) > maxRowLabel:
		return p.errorf(n, labelAt+1, "row label %q is too long (1 to %d letters or digits)", label, maxRowLabel)
	case len(p.hall.Rows) == maxLayoutRows:
		return p.errorf(n, labelAt+1, "too many rows (at most %d)", maxLayoutRows)
	}
	key := strings.ToUpper(label)
	if first, dup := p.rowLine[key]; dup {
		return p.errorf(n, labelAt+1, "duplicate row %q (first on line %d)", label, first)
	}
	// The label is taken even if the row's seats are wrong: another row
	// of that name is a mistake of its own.
	p.rowLine[key] = n

	// One space after the bar is decoration, so "A | ss" and "A |ss"
	// describe the same row; every later character is a column.
	if cellsAt < len(line) && line[cellsAt] == ' ' {
		cellsAt++
	}
	end := cellsAt
	for end < len(line) && line[end] != '#' {
		end++
	}
	for end > cellsAt && line[end-1] == ' ' {
		end--
	}
	row := len(p.hall.Rows)
	var seats []Seat
	var cols []int // line index of each seat, for messages
	for i := cellsAt; i < end; i++ {
		col := i - cellsAt
		var kind SeatKind
		switch r := line[i]; r {
		case '.', ' ':
			continue
		case 's':
			kind = Standard
		case 'p':
			kind = Premium
		case 'w':
			kind = Wheelchair
		case 'c':
			kind = Companion
		default:
			return p.errorf(n, i+1, "unexpected %s in row %s: expected %s", layoutRune(r), label, layoutSeatChars)
		}
		if col >= maxLayoutCols {
			return p.errorf(n, i+1, "row %s is too wide (at most %d columns)", label, maxLayoutCols)
		}
		seats = append(seats, Seat{RowTag: label, Row: row, Col: col, Kind: kind})
		cols = append(cols, i)
	}
	if len(seats) == 0 {
		return p.errorf(n, cellsAt+1, "row %s has no seats: draw them with %s", label, layoutSeatChars)
	}
	for i := range seats {
		num := i + 1
		if p.numbering == numRightToLeft {
			num = len(seats) - i
		}
		s := &seats[i]
		s.Number = num
		s.Label = label + strconv.Itoa(num)
		lk := strings.ToUpper(s.Label)
		if o, clash := p.labels[lk]; clash {
			return p.errorf(n, cols[i]+1, "seat %s of row %s reads the same as seat %d of row %s (line %d): rename one of the rows", s.Label, label, o.number, o.row, o.line)
		}
		p.labels[lk] = layoutSeatOrigin{row: label, number: num, line: n}
	}
	p.hall.Rows = append(p.hall.Rows, label)
	p.hall.Seats = append(p.hall.Seats, seats...)
	p.hall.Width = max(p.hall.Width, end-cellsAt)
	return nil
}
