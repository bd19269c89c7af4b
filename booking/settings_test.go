package booking

import (
	"strings"
	"testing"
	"time"
)

func TestValidSetting(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for _, c := range []struct{ key, in, want string }{
			{SetName, " Roxy Cinema ", "Roxy Cinema"},
			{SetSymbol, "€", "€"},
			{SetCode, "eur", "EUR"},
			{SetDecimals, "0", "0"},
			{SetPosition, "After", "after"},
			{SetLocale, "DE", "de"},
			{SetLocale, "en_us", "en-US"},
			{SetTimeZone, "Europe/Paris", "Europe/Paris"},
			{SetAddress, "12 High Street|Leeds  LS1 4AB", "12 High Street | Leeds  LS1 4AB"},
			{SetFooter, "", ""}, // empty puts the default back
			{SetTaxLabel, "MwSt", "MwSt"},
		} {
			got, err := ValidSetting(c.key, c.in)
			if err != nil || got != c.want {
				t.Errorf("ValidSetting(%s, %q) = %q, %v; want %q", c.key, c.in, got, err, c.want)
			}
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, c := range []struct{ key, in, says string }{
			{"currency.colour", "red", "There is no setting"},
			{SetSymbol, "EURO€", "at most 4"},
			{SetCode, "EU", "three-letter"},
			{SetDecimals, "3", "2, or 0"},
			{SetPosition, "left", "before or after"},
			{SetLocale, "klingon", "one of de, en, en-US, es, fr, nl"},
			{SetTimeZone, "Mars/Olympus", "IANA time zone"},
			{SetTimeZone, "/etc/localtime", "IANA time zone"},
			{SetTimeZone, "Local", "IANA time zone"},
			{SetTimeZone, "../../etc/passwd", "IANA time zone"},
			{SetName, "Roxy\x1b[2J", "printable"},
			{SetAddress, "1|2|3|4|5", "at most 4 lines"},
			{SetFooter, strings.Repeat("x", 43), "at most 42"},
			{SetName, strings.Repeat("x", MaxSettingValue+1), "at most 400 bytes"},
		} {
			_, err := ValidSetting(c.key, c.in)
			if ErrorCode(err) != EInvalid || !strings.Contains(ErrorMessage(err), c.says) {
				t.Errorf("ValidSetting(%s, %q): %v; want EInvalid saying %q", c.key, c.in, err, c.says)
			}
		}
	})
}

// TestResolveCinema: a site's own value over the cinema's over the
// default; a stored value that no longer checks reads as unset.
func TestResolveCinema(t *testing.T) {
	rows := []SettingRow{
		{SetName, AllSites, "Roxy"},
		{SetLocale, AllSites, "de"},
		{SetSymbol, AllSites, "€"},
		{SetTimeZone, AllSites, "Europe/Berlin"},
		{SetTimeZone, 2, "Europe/Lisbon"},
		{SetLocale, 2, "nosuch"},
	}
	main := ResolveCinema(rows, 1)
	if main.Name != "Roxy" || main.Location().String() != "Europe/Berlin" || main.Formatter().Money(1250) != "12,50 €" {
		t.Errorf("site 1: %+v", main)
	}
	if s := main.Get(SetTimeZone); s.From != "cinema" {
		t.Errorf("site 1's zone comes from %q", s.From)
	}
	two := ResolveCinema(rows, 2)
	if two.Location().String() != "Europe/Lisbon" || two.Get(SetTimeZone).From != "site" || two.Locale.Tag != "de" || two.Get(SetLocale).From != "cinema" {
		t.Errorf("site 2: zone %s, locale %q from %q", two.Location(), two.Locale.Tag, two.Get(SetLocale).From)
	}
	none := ResolveCinema(nil, AllSites)
	if none.Zoned() || none.Location() != time.Local || none.TaxLabel != "VAT" || none.Formatter().Money(123456) != "1234.56" {
		t.Errorf("nothing set: %+v", none)
	}
	if got := len(none.Settings()); got != len(SettingKeys()) {
		t.Errorf("%d settings listed, %d keys", got, len(SettingKeys()))
	}
	// A day named by a date is that date at the site.
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if got := two.InZone(day); got.Location().String() != "Europe/Lisbon" || got.Day() != 1 || got.Hour() != 0 {
		t.Errorf("InZone = %s", got)
	}
}
