package tui

import (
	"fmt"
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
	m.seats.bottomH = len(bottom)
	bodyH := m.height - len(top) - len(bottom)
	var body string
	switch {
	case m.logs.open:
		body = m.logsView(bodyH)
	case m.msgs.open:
		body = m.messagesView(bodyH)
	case m.help.ShowAll:
		body = st.Title.Render("Keys") + "\n\n" + m.fullHelp(m.helpFor().FullHelp(), bodyH-2)
	default:
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
// sizes itself by them, so what it draws last stays on screen. Each of
// them is whole: a question, a call or a message longer than the width
// takes a second line rather than being cut.
func (m *Model) bottomLines() []string {
	var bottom []string
	if m.leaving != nil {
		bottom = append(bottom, m.bannerLines(m.leavePrompt())...)
	} else {
		if line := m.callsText(); line != "" {
			bottom = append(bottom, m.bannerLines(line)...)
		}
		bottom = append(bottom, m.statusLines()...)
	}
	hints := m.helpFor().ShortHelp()
	if m.logs.open {
		hints = m.logsHelp()
	}
	return append(bottom, m.hintBar(hints))
}

// bannerLines draws text on the banner's background, a line of the width
// each, wrapped at words onto as many as it needs (at most two: what the
// session asks is short).
func (m *Model) bannerLines(text string) []string {
	lines := wrapWords(text, m.width)
	if len(lines) > 2 {
		lines = lines[:2]
	}
	for i, l := range lines {
		lines[i] = m.styles.Banner.Render(padRight(l, m.width))
	}
	return lines
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

// statusLines are the line every screen tells the clerk through, two
// when the message is wider than the screen: wrapped at a word, never
// cut. A message longer still ends its second line at a word with where
// to read it whole (the message log, ctrl+l). Its text is built all over
// the program from stored names and labels ("G7 is sold."), so it is
// cleaned here, once, on its way to the terminal: whatever a message was
// built from, no control character of it is drawn.
func (m *Model) statusLines() []string {
	status := booking.Clean(m.status)
	if status == "" {
		return []string{""}
	}
	prefix, style := "", m.styles.Info
	if m.statusErr {
		prefix, style = "! ", m.styles.Error
	}
	lines := wrapWords(status, m.width-len(prefix))
	if len(lines) > 2 {
		more := " · " + m.keys.Messages.Help().Key + " reads it all"
		lines = append(lines[:1], fitWords(lines[1], m.width-len(prefix)-ansi.StringWidth(more))+more)
	}
	for i, l := range lines {
		if i == 0 {
			l = prefix + l
		} else {
			l = strings.Repeat(" ", len(prefix)) + l
		}
		lines[i] = style.Render(l)
	}
	return lines
}

// fullHelp lays every key out in columns filled top to bottom, as many
// side by side as the width takes, so the whole table fits height lines
// at the counter's smallest size. The groups are kept apart by a blank
// line while there is room for it; a table that still does not fit ends
// with a line saying how many keys are left out.
func (m *Model) fullHelp(groups [][]key.Binding, height int) string {
	type entry struct{ key, desc string }
	var spaced, tight []entry
	seen := map[entry]bool{}
	for _, g := range groups {
		if len(spaced) > 0 {
			spaced = append(spaced, entry{})
		}
		for _, b := range g {
			e := entry{b.Help().Key, b.Help().Desc}
			if !b.Enabled() || seen[e] {
				continue
			}
			seen[e] = true
			spaced, tight = append(spaced, e), append(tight, e)
		}
	}
	st := m.help.Styles
	const gap = "    "
	layout := func(items []entry) (cols [][]entry, rows int) {
		for n := len(items); n >= 1; n-- {
			rows = (len(items) + n - 1) / n
			cols = cols[:0]
			width := -len(gap)
			for i := 0; i < len(items); i += rows {
				col := items[i:min(i+rows, len(items))]
				if len(col) > 0 && col[0] == (entry{}) {
					col = col[1:] // no column starts with the blank
				}
				kw, dw := 0, 0
				for _, e := range col {
					kw, dw = max(kw, ansi.StringWidth(e.key)), max(dw, ansi.StringWidth(e.desc))
				}
				width += len(gap) + kw + 1 + dw
				cols = append(cols, col)
			}
			if width <= m.width {
				return cols, rows
			}
		}
		return cols, rows
	}
	cols, rows := layout(spaced)
	if rows > height {
		cols, _ = layout(tight)
	}
	var colText []string
	for _, col := range cols {
		kw := 0
		for _, e := range col {
			kw = max(kw, ansi.StringWidth(e.key))
		}
		lines := make([]string, len(col))
		for i, e := range col {
			if e != (entry{}) {
				lines[i] = st.FullKey.Render(padRight(e.key, kw)) + " " + st.FullDesc.Render(e.desc)
			}
		}
		colText = append(colText, strings.Join(lines, "\n"))
	}
	var parts []string
	for i, c := range colText {
		if i > 0 {
			parts = append(parts, gap)
		}
		parts = append(parts, c)
	}
	out := strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, parts...), "\n")
	if len(out) > height && height > 0 {
		left := 0
		for _, col := range cols {
			left += max(len(col)-(height-1), 0)
		}
		out = append(out[:height-1], st.FullDesc.Render(fmt.Sprintf("and %d more keys: make the window taller to see them", left)))
	}
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(out, "\n")
}
