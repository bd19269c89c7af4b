package tui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// The log lines a local counter keeps for its own screen: while the log
// file cannot be written (a full disk), its lines cannot go to stderr
// either when stderr is the terminal the counter draws on (they would be
// drawn over the screen), so they wait in a LogRing, and the messages
// (ctrl+l) say so and show them on L.

// Bounds of a LogRing: the newest lines, each cut to a size a screen can
// show, so a flood of lines costs a fixed amount of memory.
const (
	LogRingLines = 200
	logLineMax   = 2000 // bytes
)

// LogRing is the last LogRingLines log lines the log file could not take,
// and why it could not. It is safe for concurrent use: the logger writes
// from any goroutine, the counter reads it on ctrl+l.
type LogRing struct {
	mu      sync.Mutex
	lines   []string // oldest first once the ring has wrapped: see snapshot
	next    int      // where the next line goes once len(lines) is LogRingLines
	dropped int      // lines pushed out by newer ones
	partial []byte   // a line not ended yet
	problem string   // why the file is not written now; "" while it is
	since   time.Time
}

// NewLogRing returns an empty ring.
func NewLogRing() *LogRing { return &LogRing{} }

// Write adds the lines in p; a line not ended by a newline waits for the
// rest. slog hands it a whole line at a time.
func (r *LogRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data := append(r.partial, p...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		r.add(string(data[:i]))
		data = data[i+1:]
	}
	if len(data) > logLineMax { // bounded even without a newline
		r.add(string(data))
		data = nil
	}
	r.partial = append([]byte(nil), data...)
	return len(p), nil
}

func (r *LogRing) add(line string) {
	if len(line) > logLineMax {
		line = line[:logLineMax]
	}
	if len(r.lines) < LogRingLines {
		r.lines = append(r.lines, line)
		return
	}
	r.lines[r.next] = line
	r.next = (r.next + 1) % LogRingLines
	r.dropped++
}

// SetProblem records why the log file cannot be written ("" once it can
// again) and since when.
func (r *LogRing) SetProblem(problem string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problem, r.since = problem, at
}

// Lines returns the lines held, oldest first, and how many older ones
// were pushed out.
func (r *LogRing) Lines() (lines []string, dropped int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.lines))
	out = append(out, r.lines[r.next:]...)
	out = append(out, r.lines[:r.next]...)
	return out, r.dropped
}

func (r *LogRing) snapshot() logsState {
	lines, dropped := r.Lines()
	r.mu.Lock()
	defer r.mu.Unlock()
	return logsState{open: true, lines: lines, dropped: dropped, problem: r.problem, since: r.since}
}

// logLinesKey opens the lines from the messages (ctrl+l, then L):
// KeyMap.LogLines.
var logLinesKey = key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "log lines the log file missed"))

// logsState is the log lines as they were when ctrl+l was pressed, drawn
// over the active screen until esc.
type logsState struct {
	open    bool
	lines   []string
	dropped int
	problem string
	since   time.Time
	back    int // rows scrolled back from the newest
}

// logKeys is what the log view answers to; every other key waits.
func (m *Model) logKeys(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.logs = logsState{}
	case key.Matches(msg, m.keys.LogLines): // again: the lines as they are now
		back := m.logs.back
		m.logs = m.opts.LogRing.snapshot()
		m.logs.back = back
	case key.Matches(msg, m.keys.Up):
		m.logs.back = min(m.logs.back+1, max(len(m.logRows())-1, 0))
	case key.Matches(msg, m.keys.Down):
		m.logs.back = max(m.logs.back-1, 0)
	}
	return nil
}

// openLogs shows the ring's lines, when this counter keeps one.
func (m *Model) openLogs() tea.Cmd {
	if m.opts.LogRing == nil {
		return nil
	}
	m.help.ShowAll = false
	m.logs = m.opts.LogRing.snapshot()
	return nil
}

// logsHelp is the hint bar while the log lines are shown.
func (m *Model) logsHelp() []key.Binding {
	return []key.Binding{says(m.keys.Back, "back"), relabel(m.keys.Up, "↑/↓", "scroll"), says(m.keys.LogLines, "again")}
}

// logsView draws the lines, newest at the bottom, each wrapped to the
// width and cleaned: a log line quotes names and errors from anywhere.
func (m *Model) logsView(height int) string {
	st := &m.styles
	l := m.logs
	head := []string{st.Title.Render(fmt.Sprintf("Log lines the log file missed (%d, newest last)", len(l.lines)))}
	switch {
	case l.problem != "":
		head = append(head, st.Error.Render(cut("The log file cannot be written since "+l.since.Format("15:04:05")+":", m.width)))
		why := strings.Split(ansi.Hardwrap(booking.CleanLine(l.problem, 300), max(m.width-2, 1), true), "\n")
		for _, w := range why[:min(len(why), 2)] {
			head = append(head, st.Error.Render("  "+w))
		}
	case len(l.lines) > 0:
		head = append(head, st.Info.Render(cut(fmt.Sprintf("The log file is written again since %s; these lines are not in it.", l.since.Format("15:04:05")), m.width)))
	default:
		head = append(head, st.Subtle.Render("None: the log file takes every line."))
	}
	if l.dropped > 0 {
		head = append(head, st.Subtle.Render(fmt.Sprintf("(%d older lines were let go)", l.dropped)))
	}
	rows := m.logRows()
	room := max(height-len(head)-1, 0)
	end := len(rows) - min(l.back, max(len(rows)-room, 0))
	start := max(end-room, 0)
	return strings.Join(head, "\n") + "\n\n" + strings.Join(rows[start:end], "\n")
}

// logRows is the lines as the screen's rows: each cleaned and wrapped to
// the width.
func (m *Model) logRows() []string {
	var rows []string
	for _, line := range m.logs.lines {
		wrapped := ansi.Hardwrap(booking.CleanLine(line, logLineMax), max(m.width, 1), true)
		rows = append(rows, strings.Split(wrapped, "\n")...)
	}
	return rows
}
