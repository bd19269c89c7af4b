package tui

import (
	"strings"

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
		m.frame = m.render()
		m.drawn = true
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "boxoffice"
	return v
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
	if m.help.ShowAll {
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
	return append(bottom, m.help.ShortHelpView(m.helpFor().ShortHelp()))
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
