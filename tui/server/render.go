package server

import (
	"bytes"
	"io"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/tui"
)

// frameRenderer draws an SSH session's screens on its channel, in place of
// Bubble Tea's renderer. That one keeps two cell buffers the size of the
// terminal (about 112 bytes a cell: 1 MB a session at 120×40, 33 MB at the
// 500×300 bound) for as long as the session lasts, though a counter's
// screen changes a few times a minute. This one keeps the frame on the
// terminal as the string the model drew it as, which the counter's model
// holds anyway, and when a new frame comes it compares the two line by
// line: only lines that differ are taken apart into cells, on two scratch
// lines shared by every session, and only the cells that differ are sent.
//
// It draws what the counter's and the kiosk's views use: the content, the
// alternate screen, the mouse mode, the window title and the text cursor,
// and asks for the keyboard Bubble Tea's renderer asks for. A view's
// colours, progress bar and the like are not drawn, and every frame fills
// the screen from its top-left corner (both views ask for the alternate
// screen, where that is what Bubble Tea does too). A session's calls come
// from its program's goroutine, one at a time (the mutex guards against a
// close racing a last frame).
type frameRenderer struct {
	mu      sync.Mutex
	out     io.Writer
	profile colorprofile.Profile
	w, h    int

	frame   string // on the terminal, as the model drew it
	shown   shownModes
	started bool // the terminal is set up; shown says how
	repaint bool // the next frame clears the screen and draws every line
	dead    bool // closed, or a write failed: nothing more is written
}

// shownModes are the terminal modes a frame set.
type shownModes struct {
	alt    bool
	paste  bool // bracketed paste
	mouse  tea.MouseMode
	title  string
	cursor *tea.Cursor // nil: hidden
}

// newFrameRenderer draws on out, a w×h terminal of the given colour
// profile; nothing is written before the first frame.
func newFrameRenderer(out io.Writer, profile colorprofile.Profile, w, h int) *frameRenderer {
	w, h, _ = tui.BoundSize(w, h)
	return &frameRenderer{out: out, profile: profile, w: w, h: h}
}

// resize takes the terminal's new size (bounded by the program's filter);
// the next frame is drawn afresh, as a terminal reflows what it shows when
// it is resized.
func (r *frameRenderer) resize(w, h int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w, r.h, _ = tui.BoundSize(w, h)
	r.repaint = true
}

// draw brings the terminal up to v.
func (r *frameRenderer) draw(v tea.View) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead {
		return
	}
	want := shownModes{alt: v.AltScreen, paste: !v.DisableBracketedPasteMode, mouse: v.MouseMode, title: v.WindowTitle, cursor: v.Cursor}
	if r.started && !r.repaint && v.Content == r.frame && sameModes(r.shown, want) {
		return // the usual case: a message that changed nothing on screen
	}
	b := getBuf()
	defer putBuf(b)
	if !r.started {
		r.start(b, want)
	} else {
		r.modes(b, want)
	}
	was, now := r.frame, v.Content
	if r.repaint {
		b.WriteString(ansi.ResetStyle + ansi.CursorHomePosition + ansi.EraseEntireScreen)
		was, r.repaint = "", false
	}
	if was != now {
		sc := getScratch()
		for y := range r.h {
			var o, n string
			was, o = nextLine(was)
			now, n = nextLine(now)
			if o != n {
				sc.paintRow(b, r, y, o, n)
			}
		}
		putScratch(sc)
	}
	if c := want.cursor; c != nil {
		b.WriteString(ansi.CursorPosition(c.X+1, c.Y+1))
	}
	// The frame is kept as the model's own string, not a copy.
	r.frame, r.shown = v.Content, want
	r.write(b)
}

// start sets the terminal up for the first frame, as Bubble Tea's renderer
// does: the alternate screen, the cursor, bracketed paste, the mouse, the
// title, and the keyboard (modifyOtherKeys and the kitty protocol's key
// disambiguation, which the input reader decodes), then clears the screen.
func (r *frameRenderer) start(b *bytes.Buffer, want shownModes) {
	if want.alt {
		b.WriteString(ansi.SetModeAltScreenSaveCursor)
	}
	b.WriteString(ansi.ResetModeTextCursorEnable)
	if want.paste {
		b.WriteString(ansi.SetModeBracketedPaste)
	}
	b.WriteString(mouseOn(want.mouse))
	if want.title != "" {
		b.WriteString(ansi.SetWindowTitle(want.title))
	}
	b.WriteString(ansi.SetModifyOtherKeys2 + ansi.PushKittyKeyboard(1) + ansi.RequestKittyKeyboard)
	if want.cursor != nil {
		b.WriteString(ansi.SetModeTextCursorEnable)
	}
	r.started, r.repaint = true, true
}

// modes changes the terminal's modes from the last frame's to want's.
func (r *frameRenderer) modes(b *bytes.Buffer, want shownModes) {
	was := r.shown
	if want.alt != was.alt {
		if want.alt {
			b.WriteString(ansi.SetModeAltScreenSaveCursor)
		} else {
			b.WriteString(ansi.ResetModeAltScreenSaveCursor)
		}
		r.repaint = true
	}
	if want.paste != was.paste {
		if want.paste {
			b.WriteString(ansi.SetModeBracketedPaste)
		} else {
			b.WriteString(ansi.ResetModeBracketedPaste)
		}
	}
	if want.mouse != was.mouse {
		b.WriteString(mouseOff(was.mouse) + mouseOn(want.mouse))
	}
	if want.title != was.title {
		b.WriteString(ansi.SetWindowTitle(want.title))
	}
	if (want.cursor == nil) != (was.cursor == nil) {
		if want.cursor == nil {
			b.WriteString(ansi.ResetModeTextCursorEnable)
		} else {
			b.WriteString(ansi.SetModeTextCursorEnable)
		}
	}
}

func sameModes(a, b shownModes) bool {
	if a.alt != b.alt || a.paste != b.paste || a.mouse != b.mouse || a.title != b.title || (a.cursor == nil) != (b.cursor == nil) {
		return false
	}
	return a.cursor == nil || (a.cursor.X == b.cursor.X && a.cursor.Y == b.cursor.Y)
}

func mouseOn(m tea.MouseMode) string {
	switch m {
	case tea.MouseModeCellMotion:
		return ansi.SetModeMouseButtonEvent + ansi.SetModeMouseExtSgr
	case tea.MouseModeAllMotion:
		return ansi.SetModeMouseAnyEvent + ansi.SetModeMouseExtSgr
	}
	return ""
}

func mouseOff(m tea.MouseMode) string {
	if m == tea.MouseModeNone {
		return ""
	}
	return ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr
}

// close hands the terminal back as Bubble Tea's renderer does when a
// program ends: the keyboard, the cursor on the bottom line, the main
// screen, the cursor shown, the modes off. Nothing is written after it, so
// what the server prints next lands on the main screen.
func (r *frameRenderer) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead {
		return
	}
	defer func() { r.dead, r.frame = true, "" }()
	if !r.started {
		return
	}
	b := getBuf()
	defer putBuf(b)
	was := r.shown
	b.WriteString(ansi.ResetStyle + ansi.ResetModifyOtherKeys + ansi.PopKittyKeyboard(1))
	b.WriteString(ansi.CursorPosition(1, r.h))
	if was.alt {
		b.WriteString(ansi.ResetModeAltScreenSaveCursor)
	} else {
		b.WriteString(ansi.EraseScreenBelow)
	}
	b.WriteString(ansi.SetModeTextCursorEnable)
	if was.paste {
		b.WriteString(ansi.ResetModeBracketedPaste)
	}
	b.WriteString(mouseOff(was.mouse))
	if was.title != "" {
		b.WriteString(ansi.SetWindowTitle(""))
	}
	r.write(b)
}

// write sends b; after a failed write (the session is gone) nothing more
// is tried.
func (r *frameRenderer) write(b *bytes.Buffer) {
	if b.Len() == 0 {
		return
	}
	if _, err := r.out.Write(b.Bytes()); err != nil {
		r.dead = true
	}
}

// nextLine splits the first line off s.
func nextLine(s string) (rest, line string) {
	line, rest, _ = strings.Cut(s, "\n")
	return rest, strings.TrimSuffix(line, "\r")
}

// scratch is a pair of lines a row is taken apart on: the row as it is on
// the terminal and as it is to be.
type scratch struct {
	was, now lineScreen
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{was: lineScreen{line: uv.NewLine(tui.MaxWidth)}, now: lineScreen{line: uv.NewLine(tui.MaxWidth)}}
}}

func getScratch() *scratch  { return scratchPool.Get().(*scratch) }
func putScratch(s *scratch) { scratchPool.Put(s) }

// bufPool holds the buffers a frame is put together in; one much larger
// than a usual frame is let go rather than kept.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer { return bufPool.Get().(*bytes.Buffer) }

func putBuf(b *bytes.Buffer) {
	if b.Cap() > 64<<10 {
		return
	}
	b.Reset()
	bufPool.Put(b)
}

// lineScreen is one row of cells as a uv.Screen, for a styled line to be
// drawn onto: uv parses the line's text and escape sequences into cells
// the way Bubble Tea's renderer does.
type lineScreen struct {
	line uv.Line
	w    int
}

func (l *lineScreen) Bounds() uv.Rectangle { return uv.Rect(0, 0, l.w, 1) }

func (l *lineScreen) CellAt(x, y int) *uv.Cell {
	if y != 0 || x < 0 || x >= l.w {
		return nil
	}
	return &l.line[x]
}

func (l *lineScreen) SetCell(x, y int, c *uv.Cell) {
	if y == 0 && x >= 0 && x < l.w {
		l.line[:l.w].Set(x, c)
	}
}

func (l *lineScreen) WidthMethod() uv.WidthMethod { return ansi.WcWidth }

// load takes text apart into the first w cells of the line.
func (l *lineScreen) load(text string, w int) uv.Line {
	l.w = w
	uv.NewStyledString(text).Draw(l, l.Bounds())
	return l.line[:w]
}

// gapJump is how many unchanged cells in a row are skipped with a cursor
// move rather than sent again: a move costs about as many bytes.
const gapJump = 8

// paintRow sends what changed in row y from was to now.
func (sc *scratch) paintRow(b *bytes.Buffer, r *frameRenderer, y int, was, now string) {
	w := r.w
	o, n := sc.was.load(was, w), sc.now.load(now, w)
	// tail is where the row's trailing blanks start: those are cleared
	// with one erase rather than sent.
	tail := w
	for tail > 0 && n[tail-1].Equal(&uv.EmptyCell) {
		tail--
	}
	var pen uv.Style
	var raw uv.Style // the unconverted style pen was made from
	at := -1         // where the cursor is, -1 when not on this row
	x := 0
	for x < w {
		// The first cell that differs is never the second cell of a wide
		// character, old or new, unless its first was just sent: the cell
		// before it is the same in both.
		if o[x].Equal(&n[x]) {
			x++
			continue
		}
		if x >= tail {
			break
		}
		if at != x {
			b.WriteString(ansi.CursorPosition(x+1, y+1))
		}
		// Send from x to the end of the change, taking in short runs of
		// unchanged cells rather than moving past them.
		end := x
		for i, same := x, 0; i < tail && same < gapJump; i++ {
			if o[i].Equal(&n[i]) {
				same++
			} else {
				same, end = 0, i
			}
		}
		if end+1 < w && n[end].Width > 1 {
			end += n[end].Width - 1
		}
		for ; x <= end && x < tail; x++ {
			c := &n[x]
			if c.Width == 0 {
				continue
			}
			if !c.Style.Equal(&raw) {
				raw = c.Style
				st := uv.ConvertStyle(c.Style, r.profile)
				if st.IsZero() {
					if !pen.IsZero() {
						b.WriteString(ansi.ResetStyle)
					}
				} else if !st.Equal(&pen) {
					b.WriteString(st.Diff(&pen))
				}
				pen = st
			}
			if c.Content == "" {
				b.WriteByte(' ')
			} else {
				b.WriteString(c.Content)
			}
		}
		at = x
	}
	if !pen.IsZero() {
		b.WriteString(ansi.ResetStyle)
	}
	// Clear the row's tail when something was there.
	for i := tail; i < w; i++ {
		if !o[i].Equal(&uv.EmptyCell) {
			if at != tail {
				b.WriteString(ansi.CursorPosition(tail+1, y+1))
			}
			b.WriteString(ansi.EraseLineRight)
			break
		}
	}
}
