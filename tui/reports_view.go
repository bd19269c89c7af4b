package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/charmbracelet/x/ansi"
)

// reportBar draws an occupancy, 0..100, as full and empty cells with the
// figure after it: the cells say it without colour.
func reportBar(st *Styles, percent float64, width int) string {
	full := min(max(int(percent*float64(width)/100+0.5), 0), width)
	return st.BarFull.Render(strings.Repeat("█", full)) + st.BarEmpty.Render(strings.Repeat("░", width-full)) + fmt.Sprintf(" %5.1f%%", percent)
}

func (reportsScreen) view(m *Model, height int) string {
	st := &m.styles
	r := &m.reports
	var b strings.Builder
	b.WriteString(st.Title.Render("Reports") + st.Subtle.Render(" · "+r.title()) + "\n")
	b.WriteString(reportTabs(st, r.kind, m.width) + "\n\n")
	noteH := 0
	if r.note != "" {
		note := wrapText(r.note, m.width-4, 2)
		noteH = strings.Count(note, "\n") + 2
		b.WriteString(st.Info.Render(indent(note, 2)) + "\n\n")
	}
	switch {
	case r.table == nil && r.busy:
		b.WriteString(st.Subtle.Render("  Adding up…"))
		return b.String()
	case r.table == nil:
		b.WriteString(st.Subtle.Render("  No report: see the line below."))
		return b.String()
	case len(r.table.rows) == 0:
		b.WriteString(st.Subtle.Render("  " + r.table.empty))
		return b.String()
	}
	// Title, tabs, a blank line, then the table's borders (top, under the
	// header, over the total, bottom), its header and its total.
	rows := max(height-9-noteH, 1)
	b.WriteString(m.reportGrid(r, rows))
	if n := len(r.table.rows); n > rows {
		b.WriteString("\n" + st.Subtle.Render(fmt.Sprintf("  rows %d–%d of %d · ↑↓ scroll", r.offset+1, min(r.offset+rows, n), n)))
	}
	return b.String()
}

// reportTabs names the reports, the one on show marked, in width
// columns: spaced out when they fit so, else close together, so every
// report's name stays on screen at 80 columns.
func reportTabs(st *Styles, on reportKind, width int) string {
	line := func(pad string) string {
		var tabs []string
		for k, name := range reportNames {
			if reportKind(k) == on {
				tabs = append(tabs, st.Selected.Render("["+name+"]"))
			} else {
				tabs = append(tabs, st.Subtle.Render(pad+name+pad))
			}
		}
		return " " + strings.Join(tabs, " ")
	}
	if wide := line(" "); lipgloss.Width(wide) <= width {
		return wide
	}
	return line("")
}

// reportGrid draws the visible rows and the total as a lipgloss table no
// wider than the window: when the cells would make it wider, the columns
// of names (reportTable.cut) are shortened, the widest first, so no
// figure is ever cut; occupancy's last column is a bar.
func (m *Model) reportGrid(r *reportsState, rows int) string {
	st := &m.styles
	t := r.table
	first := min(r.offset, max(len(t.rows)-rows, 0))
	r.offset = first
	last := min(first+rows, len(t.rows))
	barW := max(min(m.width-70, 20), 6)
	widths := t.fitWidths(m.width, barW)
	fitRow := func(cells []string) []string {
		out := append([]string(nil), cells...)
		for _, c := range t.cut {
			if c < len(out) {
				out[c] = cut(out[c], widths[c])
			}
		}
		return out
	}
	var data [][]string
	for i := first; i < last; i++ {
		row := fitRow(t.rows[i])
		if t.bars != nil {
			row[len(row)-1] = reportBar(st, t.bars[i], barW)
		}
		data = append(data, row)
	}
	total := fitRow(t.total)
	if t.bars != nil {
		total[len(total)-1] = reportBar(st, t.totalBar, barW)
	}
	data = append(data, total)
	totalRow := len(data) - 1
	grid := table.New().
		Border(lipgloss.NormalBorder()).
		BorderStyle(st.Subtle).
		Headers(fitRow(t.head)...).
		Rows(data...).
		Wrap(false).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle().Padding(0, 1)
			// Names read from the left, figures line up on the right.
			if col > 0 && !slices.Contains(t.cut, col) && !(t.bars != nil && col == len(t.head)-1) {
				s = s.Align(lipgloss.Right)
			}
			switch row {
			case table.HeaderRow:
				return s.Bold(true)
			case totalRow:
				return s.Bold(true)
			}
			return s
		})
	return grid.String()
}

// fitWidths is each column's width in cells once the table fits width:
// the widest of its header, rows and total, the name columns then taken
// in, widest first, to no less than 6 cells. The widths cover every row,
// not only those on show, so scrolling never moves a column.
func (t *reportTable) fitWidths(width, barW int) []int {
	w := make([]int, len(t.head))
	measure := func(cells []string) {
		for i, c := range cells {
			if i < len(w) {
				w[i] = max(w[i], ansi.StringWidth(c))
			}
		}
	}
	measure(t.head)
	measure(t.total)
	for _, r := range t.rows {
		measure(r)
	}
	if t.bars != nil {
		w[len(w)-1] = max(w[len(w)-1], barW+7) // the bar and " 100.0%"
	}
	// Each column has a cell of padding either side and a border after
	// it; the table a border before its first.
	total := 1
	for _, x := range w {
		total += x + 3
	}
	for total > width {
		widest := -1
		for _, c := range t.cut {
			if c < len(w) && w[c] > 6 && (widest < 0 || w[c] > w[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break // only figures left: they are never cut
		}
		w[widest]--
		total--
	}
	return w
}
