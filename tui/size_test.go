package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestBoundSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w, h, bw, bh int
		cut          bool
	}{
		{120, 40, 120, 40, false},
		{MaxWidth, MaxHeight, MaxWidth, MaxHeight, false},
		{MaxWidth + 1, 40, MaxWidth, 40, true},
		{120, MaxHeight + 1, 120, MaxHeight, true},
		{60000, 60000, MaxWidth, MaxHeight, true},
		{1 << 40, 1 << 40, MaxWidth, MaxHeight, true},
		{0, 0, 0, 0, false},
		{-5, 10, 0, 10, true},
	} {
		bw, bh, cut := BoundSize(tc.w, tc.h)
		if bw != tc.bw || bh != tc.bh || cut != tc.cut {
			t.Errorf("BoundSize(%d, %d) = %d, %d, %v; want %d, %d, %v", tc.w, tc.h, bw, bh, cut, tc.bw, tc.bh, tc.cut)
		}
	}
}

// A size report typed into the input reaches the filter as a
// WindowSizeMsg of up to a million cells (Bubble Tea's own limit): the
// filter hands next and the program the bounded size, and leaves every
// other message alone.
func TestBoundSizeFilter(t *testing.T) {
	t.Parallel()
	var seen []tea.Msg
	f := BoundSizeFilter(func(_ tea.Model, msg tea.Msg) tea.Msg { seen = append(seen, msg); return msg })
	if got := f(nil, tea.WindowSizeMsg{Width: 4096, Height: 256}); got != (tea.WindowSizeMsg{Width: MaxWidth, Height: 256}) {
		t.Errorf("filter gave %v", got)
	}
	if got := f(nil, tea.WindowSizeMsg{Width: 100, Height: 30}); got != (tea.WindowSizeMsg{Width: 100, Height: 30}) {
		t.Errorf("filter gave %v for a size within the bound", got)
	}
	if got := f(nil, tea.ResumeMsg{}); got != (tea.ResumeMsg{}) {
		t.Errorf("filter gave %v for a resume", got)
	}
	if len(seen) != 3 || seen[0] != (tea.WindowSizeMsg{Width: MaxWidth, Height: 256}) {
		t.Errorf("next saw %v", seen)
	}
	if got := BoundSizeFilter(nil)(nil, tea.WindowSizeMsg{Width: 1000, Height: 1000}); got != (tea.WindowSizeMsg{Width: MaxWidth, Height: MaxHeight}) {
		t.Errorf("filter without next gave %v", got)
	}
}

// The banner appears when the terminal outgrows the bound, follows its
// size, goes when it fits again, and a size that changes nothing sends
// nothing.
func TestSizeBanner_Update(t *testing.T) {
	t.Parallel()
	var b SizeBanner
	steps := []struct {
		w, h int
		want tea.Msg
	}{
		{120, 40, nil},
		{60000, 60000, ServerNoticeMsg{Text: SizeNotice(60000, 60000)}},
		{60000, 60000, nil},
		{600, 40, ServerNoticeMsg{Text: SizeNotice(600, 40)}},
		{120, 40, ServerNoticeMsg{}},
		{100, 30, nil},
	}
	for i, s := range steps {
		if got := b.Update(s.w, s.h); got != s.want {
			t.Errorf("step %d (%d×%d): %v, want %v", i, s.w, s.h, got, s.want)
		}
	}
}
