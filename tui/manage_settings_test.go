package tui

import (
	"context"
	"testing"

	"boxoffice/booking"
)

// TestManage_Settings: the manager's settings list every key with its
// value in force; e sets the one under the cursor; a bad value is refused
// on the form in the rule's words and nothing is written; an empty value
// puts the default back.
func TestManage_Settings(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	m := newTestModel(t, s, clock, "mgr-settings", 100, 30)
	openManager(t, m, "8")
	onScreen(t, m, "cinema.name", "currency.symbol", "locale", "tax.label", "VAT", "default")

	press(t, m, "e")
	typeText(t, m, "Kino Roxy")
	press(t, m, "enter")
	c, err := s.Cinema(ctx, booking.System, booking.AllSites)
	if err != nil || c.Name != "Kino Roxy" {
		t.Fatalf("cinema.name after e: %+v %v", c, err)
	}
	onScreen(t, m, "Set cinema.name.", "Kino Roxy", "cinema")

	for range 7 { // cinema.name … locale
		press(t, m, "down")
	}
	press(t, m, "e")
	typeText(t, m, "xx")
	press(t, m, "enter")
	if m.manage.form == nil {
		t.Fatal("a bad locale closed the form")
	}
	onScreen(t, m, "locale is one of")
	if c, _ := s.Cinema(ctx, booking.System, booking.AllSites); c.Get(booking.SetLocale).Value != "" {
		t.Fatalf("a bad locale was written: %q", c.Get(booking.SetLocale).Value)
	}
	retype(t, m, "de")
	press(t, m, "enter")
	if c, _ := s.Cinema(ctx, booking.System, booking.AllSites); c.Locale.Tag != "de" {
		t.Fatalf("locale after e: %q", c.Locale.Tag)
	}

	press(t, m, "up", "up", "up", "up", "up", "up", "up", "e", "ctrl+u", "enter")
	if c, _ := s.Cinema(ctx, booking.System, booking.AllSites); c.Name != "" || c.Get(booking.SetName).From != "default" {
		t.Fatalf("cinema.name after clearing: %q from %s", c.Name, c.Get(booking.SetName).From)
	}
}
