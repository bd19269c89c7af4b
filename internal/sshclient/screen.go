// Package sshclient drives the counter over a real SSH connection as a
// test would by hand: keys go in, and what comes out is replayed onto a
// Screen, so a test reads what the clerk sees.
package sshclient

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Screen is a small terminal emulator: enough of VT100/xterm to replay
// what the Bubble Tea renderer sends (cursor moves, erases, inserts and
// deletes, scroll regions, repeats) onto a grid of cells, so a test reads
// the screen a clerk would see rather than a stream of diffs. Colours and
// attributes are dropped.
type Screen struct {
	mu     sync.Mutex
	w, h   int
	cells  [][]rune
	x, y   int
	top    int // scroll region, inclusive
	bot    int
	sx, sy int // saved cursor
	wrap   bool
	last   rune // for REP

	state  int
	seq    []byte // CSI parameters and intermediates
	utf    []byte // a UTF-8 rune split across writes
	escStr bool   // ESC seen inside a string state
	bytes  int64  // everything fed
	notify chan struct{}
}

const (
	stGround = iota
	stEsc
	stEscSkip // ESC ( B and friends: one more byte
	stCSI
	stString // OSC, DCS, APC, PM, SOS: until BEL or ST
)

// NewScreen is a blank w×h screen with the cursor at the top left.
func NewScreen(w, h int) *Screen {
	s := &Screen{w: w, h: h, bot: h - 1, wrap: true, notify: make(chan struct{})}
	s.cells = make([][]rune, h)
	for i := range s.cells {
		s.cells[i] = blankLine(w)
	}
	return s
}

func blankLine(w int) []rune {
	l := make([]rune, w)
	for i := range l {
		l[i] = ' '
	}
	return l
}

// Changed returns a channel closed at the next write.
func (s *Screen) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notify
}

// Bytes is how many bytes were fed so far.
func (s *Screen) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// Text is the screen, one line per row, trailing spaces cut.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for i, l := range s.cells {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(string(l), " \x00"))
	}
	return b.String()
}

// Top returns the first n rows as text: cheaper than Text when a test
// watches only a header.
func (s *Screen) Top(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.cells[:min(n, len(s.cells))] {
		b.WriteString(string(l))
		b.WriteByte('\n')
	}
	return b.String()
}

// Lines returns a copy of the rows as rune slices (cells).
func (s *Screen) Lines() [][]rune {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]rune, len(s.cells))
	for i, l := range s.cells {
		out[i] = append([]rune(nil), l...)
	}
	return out
}

// Extent is the size of what is drawn: one past the rightmost column and
// the lowest row that hold anything but a space, so a test can tell a
// program drew within a bound on a screen larger than it.
func (s *Screen) Extent() (w, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for y, l := range s.cells {
		for x := len(l) - 1; x >= 0; x-- {
			if l[x] != ' ' && l[x] != 0 {
				w, h = max(w, x+1), y+1
				break
			}
		}
	}
	return w, h
}

// Write replays p onto the screen and wakes whoever waits on Changed.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.bytes += int64(len(p))
	for _, c := range p {
		s.feed(c)
	}
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
	return len(p), nil
}

func (s *Screen) feed(c byte) {
	switch s.state {
	case stEsc:
		s.esc(c)
		return
	case stEscSkip:
		s.state = stGround
		return
	case stCSI:
		if c >= 0x40 && c <= 0x7e {
			s.csi(c)
			s.state = stGround
			return
		}
		if c == 0x1b {
			s.state = stEsc
			return
		}
		s.seq = append(s.seq, c)
		return
	case stString:
		switch {
		case c == 0x07:
			s.state = stGround
		case c == 0x1b:
			s.escStr = true
		case s.escStr && c == '\\':
			s.escStr = false
			s.state = stGround
		default:
			s.escStr = false
		}
		return
	}
	// Ground.
	if len(s.utf) > 0 || c >= 0x80 {
		s.utf = append(s.utf, c)
		if !utf8.FullRune(s.utf) {
			return
		}
		r, _ := utf8.DecodeRune(s.utf)
		s.utf = s.utf[:0]
		s.print(r)
		return
	}
	switch c {
	case 0x1b:
		s.state = stEsc
	case '\r':
		s.x = 0
	case '\n', 0x0b, 0x0c:
		s.lineFeed()
	case '\b':
		if s.x > 0 {
			s.x--
		}
	case '\t':
		s.x = min((s.x/8+1)*8, s.w-1)
	default:
		if c >= 0x20 && c < 0x7f {
			s.print(rune(c))
		}
	}
}

func (s *Screen) esc(c byte) {
	s.state = stGround
	switch c {
	case '[':
		s.seq = s.seq[:0]
		s.state = stCSI
	case ']', 'P', 'X', '^', '_':
		s.escStr = false
		s.state = stString
	case '(', ')', '*', '+', '#', ' ', '%':
		s.state = stEscSkip
	case 'M':
		if s.y == s.top {
			s.scrollDown(1)
		} else if s.y > 0 {
			s.y--
		}
	case 'D':
		s.lineFeed()
	case 'E':
		s.x = 0
		s.lineFeed()
	case '7':
		s.sx, s.sy = s.x, s.y
	case '8':
		s.x, s.y = s.sx, s.sy
	case 'c':
		*s = Screen{w: s.w, h: s.h, bot: s.h - 1, wrap: true, notify: s.notify, bytes: s.bytes, cells: s.cells}
		s.clear(0, 0, s.w, s.h)
	}
}

func (s *Screen) print(r rune) {
	w := ansi.StringWidth(string(r))
	if w == 0 {
		return
	}
	if s.x >= s.w {
		if s.wrap {
			s.x = 0
			s.lineFeed()
		} else {
			s.x = s.w - w
		}
	}
	s.cells[s.y][s.x] = r
	if w == 2 && s.x+1 < s.w {
		s.cells[s.y][s.x+1] = 0
	}
	s.last = r
	s.x += w
	if !s.wrap && s.x >= s.w {
		s.x = s.w - 1
	}
}

func (s *Screen) lineFeed() {
	if s.y == s.bot {
		s.scrollUp(1)
		return
	}
	if s.y < s.h-1 {
		s.y++
	}
}

func (s *Screen) scrollUp(n int) {
	for range n {
		copy(s.cells[s.top:s.bot+1], s.cells[s.top+1:s.bot+1])
		s.cells[s.bot] = blankLine(s.w)
	}
}

func (s *Screen) scrollDown(n int) {
	for range n {
		copy(s.cells[s.top+1:s.bot+1], s.cells[s.top:s.bot])
		s.cells[s.top] = blankLine(s.w)
	}
}

// clear blanks the cells from (x0, y0) to (x1, y1) exclusive, row-wise.
func (s *Screen) clear(x0, y0, x1, y1 int) {
	for y := max(y0, 0); y < min(y1, s.h); y++ {
		for x := max(x0, 0); x < min(x1, s.w); x++ {
			s.cells[y][x] = ' '
		}
	}
}

// csiArgs are a CSI sequence's parameters, and its private marker (?, <,
// = or >) if any.
type csiArgs struct {
	private string
	ps      []int
}

// arg is parameter i, or def when it is missing or zero.
func (a csiArgs) arg(i, def int) int {
	if i < len(a.ps) && a.ps[i] > 0 {
		return a.ps[i]
	}
	return def
}

func parseCSI(raw []byte) csiArgs {
	var a csiArgs
	seq := string(raw)
	if seq != "" && strings.ContainsRune("?<=>", rune(seq[0])) {
		a.private, seq = seq[:1], seq[1:]
	}
	seq = strings.TrimRight(seq, " !\"#$%&'()*+,-./")
	if seq != "" {
		for _, p := range strings.Split(seq, ";") {
			p, _, _ = strings.Cut(p, ":")
			n, _ := strconv.Atoi(p)
			a.ps = append(a.ps, n)
		}
	}
	return a
}

func (s *Screen) clampX() { s.x = min(max(s.x, 0), s.w-1) }
func (s *Screen) clampY() { s.y = min(max(s.y, 0), s.h-1) }

func (s *Screen) csi(final byte) {
	a := parseCSI(s.seq)
	_ = s.csiCursor(final, a) || s.csiErase(final, a) || s.csiEdit(final, a) || s.csiMode(final, a)
}

// csiCursor moves the cursor; false for a sequence that is not a move.
func (s *Screen) csiCursor(final byte, a csiArgs) bool {
	n := a.arg(0, 1)
	switch final {
	case 'A':
		s.y -= n
		s.clampY()
	case 'B', 'e':
		s.y += n
		s.clampY()
	case 'C', 'a':
		s.x += n
		s.clampX()
	case 'D':
		s.x = min(s.x, s.w-1) - n
		s.clampX()
	case 'E':
		s.x, s.y = 0, s.y+n
		s.clampY()
	case 'F':
		s.x, s.y = 0, s.y-n
		s.clampY()
	case 'G', '`':
		s.x = n - 1
		s.clampX()
	case 'H', 'f':
		s.y, s.x = a.arg(0, 1)-1, a.arg(1, 1)-1
		s.clampX()
		s.clampY()
	case 'd':
		s.y = n - 1
		s.clampY()
	case 'I':
		for range n {
			s.x = min((s.x/8+1)*8, s.w-1)
		}
	case 'Z':
		for range n {
			s.x = max(((s.x-1)/8)*8, 0)
		}
	default:
		return false
	}
	return true
}

// csiErase blanks part of the screen; false for another sequence.
func (s *Screen) csiErase(final byte, a csiArgs) bool {
	n := a.arg(0, 1)
	switch final {
	case 'J':
		x := min(s.x, s.w-1)
		switch a.arg(0, 0) {
		case 0:
			s.clear(x, s.y, s.w, s.y+1)
			s.clear(0, s.y+1, s.w, s.h)
		case 1:
			s.clear(0, 0, s.w, s.y)
			s.clear(0, s.y, x+1, s.y+1)
		default:
			s.clear(0, 0, s.w, s.h)
		}
	case 'K':
		x := min(s.x, s.w-1)
		switch a.arg(0, 0) {
		case 0:
			s.clear(x, s.y, s.w, s.y+1)
		case 1:
			s.clear(0, s.y, x+1, s.y+1)
		default:
			s.clear(0, s.y, s.w, s.y+1)
		}
	case 'X':
		s.clear(s.x, s.y, s.x+n, s.y+1)
	default:
		return false
	}
	return true
}

// csiEdit inserts, deletes, scrolls and repeats; false for another
// sequence.
func (s *Screen) csiEdit(final byte, a csiArgs) bool {
	n := a.arg(0, 1)
	switch final {
	case '@':
		row := s.cells[s.y]
		x := min(s.x, s.w-1)
		n = min(n, s.w-x)
		copy(row[x+n:], row[x:s.w-n])
		for i := x; i < x+n; i++ {
			row[i] = ' '
		}
	case 'P':
		row := s.cells[s.y]
		x := min(s.x, s.w-1)
		n = min(n, s.w-x)
		copy(row[x:], row[x+n:])
		for i := s.w - n; i < s.w; i++ {
			row[i] = ' '
		}
	case 'L', 'M':
		if s.y < s.top || s.y > s.bot {
			return true
		}
		top := s.top
		s.top = s.y
		if final == 'L' {
			s.scrollDown(min(n, s.bot-s.y+1))
		} else {
			s.scrollUp(min(n, s.bot-s.y+1))
		}
		s.top = top
		s.x = 0
	case 'S':
		if a.private == "" {
			s.scrollUp(min(n, s.bot-s.top+1))
		}
	case 'T':
		if a.private == "" {
			s.scrollDown(min(n, s.bot-s.top+1))
		}
	case 'r':
		if a.private == "" {
			s.top, s.bot = a.arg(0, 1)-1, a.arg(1, s.h)-1
			if s.top >= s.bot || s.bot >= s.h {
				s.top, s.bot = 0, s.h-1
			}
			s.x, s.y = 0, 0
		}
	case 'b':
		for range n {
			s.print(s.last)
		}
	default:
		return false
	}
	return true
}

// csiMode sets the modes the screen keeps (autowrap, the alternate
// screen) and saves or restores the cursor; false for another sequence.
func (s *Screen) csiMode(final byte, a csiArgs) bool {
	switch final {
	case 'h', 'l':
		if a.private != "?" {
			return true
		}
		for _, p := range a.ps {
			switch p {
			case 7:
				s.wrap = final == 'h'
			case 47, 1047, 1049:
				s.clear(0, 0, s.w, s.h)
			}
		}
	case 's':
		if a.private == "" {
			s.sx, s.sy = s.x, s.y
		}
	case 'u':
		if a.private == "" {
			s.x, s.y = s.sx, s.sy
		}
	default:
		return false
	}
	return true
}
