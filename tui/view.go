package tui

import (
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// View draws the session. Bubble Tea asks for a frame after every
// message; a change notice only starts a reload, so its frame is the last
// one again. With two hundred counters on one show that halves the
// drawing per change.
func (m *Model) View() tea.View {
	if !m.drawn {
		m.frame = drawable(m.render())
		m.drawn = true
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "boxoffice"
	return v
}

// drawable is the one boundary between the session's frame and the
// terminal: it keeps the text, the newlines and the colours and
// attributes the styles draw with (SGR: ESC [ digits and semicolons m),
// and drops everything else that could steer a terminal — other escape
// sequences whole (cursor moves, screen clears, titles, the clipboard,
// hyperlinks, device strings), C0 and C1 controls, carriage returns,
// bidi and other invisible formatting characters, bytes that are not
// UTF-8. Strings from the store are cleaned where they are drawn too
// (cut, fit, the status line), which is what keeps a stored colour out;
// this pass is what keeps anything a screen forgot to clean from moving
// the cursor, rewriting the title or reordering the text.
func drawable(frame string) string {
	var b strings.Builder
	b.Grow(len(frame))
	for i := 0; i < len(frame); {
		if frame[i] == 0x1b {
			n, keep := escapeLen(frame[i:])
			if keep {
				b.WriteString(frame[i : i+n])
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(frame[i:])
		if r == '\n' || !booking.Unsafe(r) && !(r == utf8.RuneError && size == 1) {
			b.WriteString(frame[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeLen is how long the escape sequence at the start of s is, and
// whether it is an SGR (ESC [ params m) that drawable keeps. A control
// string (OSC, DCS, APC, PM, SOS) runs to its ST or BEL, or to the end.
func escapeLen(s string) (n int, sgr bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[':
		params := true
		for i := 2; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= 0x40 && c <= 0x7e:
				return i + 1, c == 'm' && params
			case c >= '0' && c <= '9', c == ';', c == ':':
			case c >= 0x20 && c <= 0x3f: // other parameter and intermediate bytes
				params = false
			default: // not a CSI byte: the sequence ends here, unkept
				return i, false
			}
		}
		return len(s), false
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1, false
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2, false
			case s[i] == 0x1b:
				return i, false
			}
		}
		return len(s), false
	}
	r, size := utf8.DecodeRuneInString(s[1:])
	if r == utf8.RuneError && size <= 1 {
		size = 1
	}
	return 1 + size, false
}

// render draws the whole screen as exactly height lines of at most width
// cells.
func (m *Model) render() string {
	if m.tooSmall() {
		return m.renderTooSmall()
	}
	st := &m.styles
	var top []string
	top = append(top, m.titleBar())
	if m.notice != "" {
		top = append(top, st.Notice.Render(padRight(" "+m.notice, m.width)))
	}
	bottom := m.bottomLines()
	bodyH := m.height - len(top) - len(bottom)
	var body string
	if m.logs.open {
		body = m.logsView(bodyH)
	} else if m.help.ShowAll {
		body = st.Title.Render("Keys") + "\n\n" + m.fullHelp(m.helpFor().FullHelp())
	} else {
		body = m.active().view(m, bodyH)
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, top...)
	bl := strings.Split(body, "\n")
	for i := 0; i < bodyH; i++ {
		if i < len(bl) {
			lines = append(lines, bl[i])
		} else {
			lines = append(lines, "")
		}
	}
	lines = append(lines, bottom...)
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// bottomLines are the lines under the body: the question on the way out
// or the waiting-list call and the status, then the hint bar. The seat map
// sizes itself by them, so what it draws last stays on screen.
func (m *Model) bottomLines() []string {
	var bottom []string
	if m.leaving != nil {
		bottom = append(bottom, m.styles.Banner.Render(padRight(m.leavePrompt(), m.width)))
	} else {
		if line := m.callsLine(); line != "" {
			bottom = append(bottom, line)
		}
		bottom = append(bottom, m.statusLine())
	}
	hints := m.helpFor().ShortHelp()
	if m.logs.open {
		hints = m.logsHelp()
	}
	return append(bottom, m.help.ShortHelpView(hints))
}

// titleBar is the first line: who is signed in where, and when.
func (m *Model) titleBar() string {
	st := &m.styles
	left := st.Title.Render("boxoffice")
	if m.opts.Terminal != "" {
		left += st.Subtle.Render(" · " + booking.Clean(m.opts.Terminal))
	}
	if m.clerk != nil {
		left += st.Subtle.Render(" · ") + st.Bold.Render(booking.Clean(m.clerk.name)) + st.Subtle.Render(" ("+m.clerk.role.String()+")")
	}
	right := st.Subtle.Render(m.now().Format("Mon 2 Jan 15:04"))
	if kept := m.keptLine(); kept != "" {
		right = kept + "  " + right
	}
	return spread(left, right, m.width)
}

// statusLine is the one line every screen tells the clerk through. Its
// text is built all over the program from stored names and labels ("G7 is
// sold."), so it is cleaned here, once, on its way to the terminal:
// whatever a message was built from, no control character of it is drawn.
func (m *Model) statusLine() string {
	status := booking.Clean(m.status)
	if status == "" {
		return ""
	}
	if m.statusErr {
		return m.styles.Error.Render("! " + status)
	}
	return m.styles.Info.Render(status)
}

// fullHelp lays the help's columns out side by side while they fit the
// width and wraps the rest onto the next rows, so no column is cut off at
// the counter's smallest size.
func (m *Model) fullHelp(groups [][]key.Binding) string {
	const gap = "    "
	var rows []string
	var row []string
	rowW := 0
	flush := func() {
		if len(row) > 0 {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
		}
		row, rowW = nil, 0
	}
	for _, g := range groups {
		col := m.help.FullHelpView([][]key.Binding{g})
		w := lipgloss.Width(col)
		if len(row) > 0 && rowW+len(gap)+w > m.width {
			flush()
		}
		if len(row) > 0 {
			row = append(row, gap)
			rowW += len(gap)
		}
		row = append(row, col)
		rowW += w
	}
	flush()
	return strings.Join(rows, "\n\n")
}
