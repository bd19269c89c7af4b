package server

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// term is a terminal for the renderer's tests that keeps every cell's
// style, which the SSH tests' screen drops: it applies the renderer's cursor
// moves, erases and styled text to a uv buffer, taking each character's
// style from the SGR sequences since the last reset, as a terminal does.
type term struct {
	w, h int
	buf  *uv.Buffer
	x, y int
	pen  string // the SGR sequences in force
}

func newTerm(w, h int) *term { return &term{w: w, h: h, buf: uv.NewBuffer(w, h)} }

func (t *term) Write(p []byte) (int, error) {
	s := string(p)
	var state byte
	for len(s) > 0 {
		seq, width, n, ns := ansi.DecodeSequenceWc(s, state, nil)
		state, s = ns, s[n:]
		switch {
		case width > 0:
			var cell lineScreen
			cell.line = uv.NewLine(width)
			cell.load(t.pen+seq, width)
			for i := 0; i < width && t.x+i < t.w; i++ {
				t.buf.Lines[t.y][t.x+i] = cell.line[i]
			}
			t.x = min(t.x+width, t.w-1)
		case strings.HasPrefix(seq, "\x1b[") && !strings.ContainsAny(seq[2:3], "?<=>"):
			t.csi(seq)
		}
	}
	return len(p), nil
}

func (t *term) csi(seq string) {
	final := seq[len(seq)-1]
	params := strings.Split(seq[2:len(seq)-1], ";")
	arg := func(i int) int {
		if i >= len(params) {
			return 1
		}
		v, err := strconv.Atoi(params[i])
		if err != nil || v < 1 {
			return 1
		}
		return v
	}
	switch final {
	case 'H':
		t.y, t.x = arg(0)-1, arg(1)-1
	case 'J':
		t.buf.Clear()
	case 'K':
		for x := t.x; x < t.w; x++ {
			t.buf.Lines[t.y][x] = uv.EmptyCell
		}
	case 'm':
		if seq == ansi.ResetStyle || seq == "\x1b[0m" {
			t.pen = ""
		} else {
			t.pen += seq
		}
	}
}

// check fails unless the terminal shows frame as uv takes it apart.
func (t *term) check(tb testing.TB, frame string) {
	tb.Helper()
	want := uv.NewScreenBuffer(t.w, t.h)
	uv.NewStyledString(frame).Draw(want, want.Bounds())
	for y := range t.h {
		for x := range t.w {
			got, exp := t.buf.Lines[y][x], want.Lines[y][x]
			if !got.Equal(&exp) {
				tb.Fatalf("cell %d,%d is %q %+v, want %q %+v\nterminal:\n%s\nframe:\n%s", x, y, got.Content, got.Style, exp.Content, exp.Style, t.buf.Render(), frame)
			}
		}
	}
}

func frameView(content string) tea.View {
	v := tea.NewView(content)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "boxoffice"
	return v
}

func TestFrameRenderer_Draw(t *testing.T) {
	red := lipgloss.NewStyle().Foreground(lipgloss.Color("#ff0000")).Bold(true)
	blue := lipgloss.NewStyle().Background(lipgloss.Color("4"))
	frames := []string{
		"title\n" + red.Render("● ● ●") + " free 3/3\n\nlast",
		"title\n" + red.Render("● ") + blue.Render("○") + red.Render(" ●") + " free 2/3\n\nlast",
		"title · 界 wide\n" + blue.Render("○ ○ ○") + "\nnew line\n",
		"title · x wide\n" + blue.Render("○ ○ ○") + " " + strings.Repeat("y", 37) + "\nnew line",
		"",
		"short",
		strings.Repeat(red.Render("ab")+"cd", 20) + "\n" + strings.Repeat("界", 30),
		strings.Repeat(red.Render("ab")+"cX", 20) + "\n" + strings.Repeat("界", 10) + "ab" + strings.Repeat("界", 19),
		"ab界\nab界cd\n" + red.Render("界界"),
		"abc\nab世cd\n" + blue.Render("a界b"),
	}
	var out term
	out = *newTerm(40, 5)
	r := newFrameRenderer(&out, colorprofile.TrueColor, 40, 5)
	for i, f := range frames {
		r.draw(frameView(f))
		t.Run(strconv.Itoa(i), func(t *testing.T) { out.check(t, f) })
	}
	r.resize(30, 4)
	out = *newTerm(30, 4)
	r.draw(frameView(frames[1]))
	out.check(t, frames[1])
}

func TestFrameRenderer_SendsOnlyTheChange(t *testing.T) {
	var b bytes.Buffer
	r := newFrameRenderer(&b, colorprofile.TrueColor, 120, 40)
	seat := lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	row := func(taken int) string {
		var s strings.Builder
		for i := range 30 {
			g := "○"
			if i == taken {
				g = "●"
			}
			s.WriteString(seat.Render(g) + " ")
		}
		return s.String()
	}
	frame := func(taken int) string {
		lines := make([]string, 40)
		for i := range lines {
			lines[i] = row(-1)
		}
		lines[0] = "boxoffice · free " + strconv.Itoa(900-taken) + "/900"
		lines[20] = row(taken)
		return strings.Join(lines, "\n")
	}
	r.draw(frameView(frame(-1)))
	first := b.Len()
	b.Reset()
	r.draw(frameView(frame(7)))
	if n := b.Len(); n > 60 || n*20 > first {
		t.Errorf("one seat and a count changed: %d bytes sent (%q), the whole screen took %d", n, b.String(), first)
	}
	b.Reset()
	r.draw(frameView(frame(7)))
	if b.Len() != 0 {
		t.Errorf("the same frame again sent %q", b.String())
	}
}

func TestFrameRenderer_ColourProfile(t *testing.T) {
	frame := lipgloss.NewStyle().Foreground(lipgloss.Color("#ff8700")).Render("seat")
	for _, c := range []struct {
		p          colorprofile.Profile
		want, not  string
		wantAbsent bool
	}{
		{p: colorprofile.TrueColor, want: "38;2;255;135;0"},
		{p: colorprofile.ANSI256, want: "38;5;208", not: "38;2"},
		{p: colorprofile.Ascii, not: "38;"},
	} {
		var b bytes.Buffer
		newFrameRenderer(&b, c.p, 20, 2).draw(frameView(frame))
		if c.want != "" && !strings.Contains(b.String(), c.want) {
			t.Errorf("%v: %q has no %q", c.p, b.String(), c.want)
		}
		if c.not != "" && strings.Contains(b.String(), c.not) {
			t.Errorf("%v: %q has %q", c.p, b.String(), c.not)
		}
	}
}

func TestFrameRenderer_Close(t *testing.T) {
	var b bytes.Buffer
	r := newFrameRenderer(&b, colorprofile.TrueColor, 20, 5)
	r.draw(frameView("hello"))
	b.Reset()
	r.close()
	for _, want := range []string{ansi.ResetModeAltScreenSaveCursor, ansi.SetModeTextCursorEnable, ansi.ResetModeBracketedPaste, ansi.ResetModeMouseButtonEvent, ansi.PopKittyKeyboard(1)} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("close wrote %q: no %q", b.String(), want)
		}
	}
	b.Reset()
	r.draw(frameView("after"))
	r.close()
	if b.Len() != 0 {
		t.Errorf("written after close: %q", b.String())
	}
}
