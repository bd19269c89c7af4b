package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The status line says one thing at a time, and the next key may replace
// it. The message log keeps the last maxMessages of them, for a message
// the clerk missed or one too long for the status line's two lines:
// ctrl+l opens it over the screen, esc or ctrl+l again closes it. It is
// the session's and the clerk's: signing out forgets it, so the next
// clerk does not read the last one's customers.

// maxMessages is how many messages the log keeps.
const maxMessages = 50

// messageLog is the session's log of messages, and whether it is open
// over the screen.
type messageLog struct {
	entries []logEntry
	open    bool
}

// logEntry is one message of the log.
type logEntry struct {
	at   time.Time
	err  bool
	text string
}

// logStatus records a message the status line shows. A message saying
// that something is under way ("Selling…") is not kept: its outcome is,
// and a message repeated is kept once.
func (m *Model) logStatus(text string, isErr bool) {
	if text == "" || strings.HasSuffix(text, "…") {
		return
	}
	l := &m.msgs
	if n := len(l.entries); n > 0 && l.entries[n-1].text == text && l.entries[n-1].err == isErr {
		return
	}
	l.entries = append(l.entries, logEntry{at: m.now(), err: isErr, text: text})
	if n := len(l.entries) - maxMessages; n > 0 {
		l.entries = slices.Delete(l.entries, 0, n)
	}
}

// logKey takes the keys of the log: ctrl+l opens or closes it, esc
// closes it, and while it is open no other key acts (true: the key was
// the log's).
func (m *Model) logKey(msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, m.keys.Messages), m.msgs.open && key.Matches(msg, m.keys.Back):
		m.msgs.open = !m.msgs.open
		m.help.ShowAll = false
		return true
	}
	return m.msgs.open
}

// messagesView draws the log in height lines, newest last, each message
// wrapped to the width under its time: the newest that fit.
func (m *Model) messagesView(height int) string {
	st := &m.styles
	head := st.Title.Render("Messages") + st.Subtle.Render(" · the last "+plural(maxMessages, "message", "messages")+", newest last · esc closes")
	if note := m.logRingNote(); note != "" {
		head += "\n" + st.Error.Render(cut(note, m.width))
		height--
	}
	if len(m.msgs.entries) == 0 {
		return head + "\n\n" + st.Subtle.Render("  No messages yet.")
	}
	var lines []string
	for i := len(m.msgs.entries) - 1; i >= 0 && len(lines) < height-2; i-- {
		e := m.msgs.entries[i]
		stamp := e.at.In(m.now().Location()).Format("15:04:05") + "  "
		style := st.Info
		if e.err {
			style = st.Error
		}
		wrapped := wrapWords(booking.Clean(e.text), m.width-len(stamp)-2)
		block := make([]string, len(wrapped))
		for j, l := range wrapped {
			lead := strings.Repeat(" ", len(stamp))
			if j == 0 {
				lead = st.Subtle.Render(stamp)
			}
			block[j] = "  " + lead + style.Render(l)
		}
		lines = append(block, lines...)
	}
	if over := len(lines) - (height - 2); over > 0 {
		lines = lines[over:]
	}
	return head + "\n\n" + strings.Join(lines, "\n")
}

// logRingNote says, on a local counter whose log file missed lines, how
// many and the key that shows them; "" when it missed none.
func (m *Model) logRingNote() string {
	if m.opts.LogRing == nil {
		return ""
	}
	lines, _ := m.opts.LogRing.Lines()
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("The log file missed %s: L shows them.", plural(len(lines), "line", "lines"))
}
