package booking

import (
	"testing"
	"time"
)

func TestFormatter_Money(t *testing.T) {
	euro := Currency{Symbol: "€", Code: "EUR"}
	for _, c := range []struct {
		name string
		f    Formatter
		in   Money
		want string
	}{
		{"Plain", Formatter{}, 1250, "12.50"},
		{"PlainNegative", Formatter{}, -250, "-2.50"},
		{"PlainThousands", Formatter{}, 123456789, "1234567.89"},
		{"GermanEuro", Formatter{Currency: euro, Locale: Locales["de"]}, 1250, "12,50 €"},
		{"GermanThousands", Formatter{Currency: euro, Locale: Locales["de"]}, 123456789, "1.234.567,89 €"},
		{"GermanNegative", Formatter{Currency: euro, Locale: Locales["de"]}, -208, "-2,08 €"},
		{"GermanNoSymbol", Formatter{Locale: Locales["de"]}, 1250, "12,50"},
		{"EnglishPound", Formatter{Currency: Currency{Symbol: "£"}, Locale: Locales["en"]}, 150000, "£1,500.00"},
		{"FrenchSpace", Formatter{Currency: euro, Locale: Locales["fr"]}, 123450, "1 234,50 €"},
		{"DutchBefore", Formatter{Currency: euro, Locale: Locales["nl"]}, 1250, "€ 12,50"},
		{"SpanishAfter", Formatter{Currency: euro, Locale: Locales["es"]}, 99, "0,99 €"},
		{"PositionOverrides", Formatter{Currency: Currency{Symbol: "€", Position: SymbolBefore}, Locale: Locales["de"]}, 1250, "€ 12,50"},
		{"SymbolWithoutLocale", Formatter{Currency: Currency{Symbol: "$"}}, 1250, "$12.50"},
		{"WholeUnits", Formatter{Currency: Currency{Symbol: "¥", Whole: true}, Locale: Locales["en"]}, 125050, "¥1,251"},
		{"Zero", Formatter{Currency: euro, Locale: Locales["de"]}, 0, "0,00 €"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.Money(c.in); got != c.want {
				t.Errorf("Money(%d) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestFormatter_Dates(t *testing.T) {
	at := time.Date(2026, 12, 31, 21, 5, 0, 0, time.UTC) // a Thursday
	for tag, want := range map[string]string{
		"":      "Thu 31 Dec 2026 21:05",
		"en":    "Thu 31/12/2026 21:05",
		"en-US": "Thu 12/31/2026 9:05 PM",
		"de":    "Do 31.12.2026 21:05",
		"fr":    "jeu 31/12/2026 21:05",
		"nl":    "do 31-12-2026 21:05",
		"es":    "jue 31/12/2026 21:05",
	} {
		if got := (Formatter{Locale: Locales[tag]}).DateTime(at); got != want {
			t.Errorf("%q: DateTime = %q, want %q", tag, got, want)
		}
	}
	if got := (Formatter{}).Date(at); got != "2026-12-31" {
		t.Errorf("plain Date = %q", got)
	}
}

func TestFormatter_Rate(t *testing.T) {
	for _, c := range []struct {
		tag  string
		r    Rate
		want string
	}{{"", 2000, "20 %"}, {"", 550, "5.5 %"}, {"de", 550, "5,5 %"}, {"fr", 725, "7,25 %"}, {"en", 0, "0 %"}, {"de", 3300, "33 %"}} {
		if got := (Formatter{Locale: Locales[c.tag]}).Rate(c.r); got != c.want {
			t.Errorf("%q Rate(%d) = %q, want %q", c.tag, c.r, got, c.want)
		}
	}
}
