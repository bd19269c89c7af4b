package tui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The manager's settings (docs/settings.md): every key with its value in
// force at the counter's site and where it comes from; e edits the one
// under the cursor, an empty value putting the cinema's or the default
// back. Each key's rule is booking's (booking.ValidSetting): a bad value
// is refused on the form, in its words, before the store is asked.

func (m *Model) settingsView(h int) string {
	g := &m.manage
	if len(g.settings) == 0 {
		return m.styles.Subtle.Render("  No settings read.")
	}
	valW := max(m.width-40, 10)
	row := func(k, v, from string) string { return fmt.Sprintf("%-18s  %s  %s", k, fit(v, valW), from) }
	rows := make([]string, len(g.settings))
	for i, s := range g.settings {
		rows[i] = row(s.Key, shownSetting(s.Value), s.From)
	}
	return m.listLines(row("Setting", "Value", "From"), rows, h)
}

// shownSetting is a value as the list draws it: "-" for none.
func shownSetting(v string) string {
	if v == "" {
		return "-"
	}
	return booking.CleanLine(v, 80) // from outside: cleaned again to be drawn
}

func (m *Model) settingsKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	if !(key.Matches(msg, m.keys.MgrEdit) || key.Matches(msg, m.keys.Open)) || len(g.settings) == 0 {
		return nil
	}
	s := g.settings[g.cursor]
	site := m.opts.Site
	m.openForm("Setting "+s.Key, booking.CleanLine(s.About, 200)+". Empty: the cinema's value or the default.",
		func(m *Model, v []string) (tea.Cmd, string, error) {
			if _, err := booking.ValidSetting(s.Key, v[0]); err != nil {
				return nil, "", err
			}
			return m.mgrDo("Set "+s.Key+".", func(ctx context.Context, b Backend, a booking.Actor) error {
				_, err := b.SetSetting(ctx, a, site, s.Key, v[0])
				return err
			}), "", nil
		}, textField("Value", booking.MaxSettingValue, s.Value))
	return nil
}
