package booking

import (
	"strconv"
	"strings"
	"time"
)

// Money in the cinema's currency and locale. An amount is kept in
// hundredths (Money); how it is written is the cinema's setting: the
// currency's symbol, where it goes and how many decimals it has, and the
// locale's separators. Money.String ("12.50") stays the plain form every
// program reads — JSON, CSV — and Formatter is the one way a person is
// shown an amount, a rate or a date: receipts, tickets, PDFs, screens and
// reports. The zero Formatter writes exactly what String does, so a
// cinema that set nothing sees what it always saw.

// Currency is how the cinema's money is named and written.
type Currency struct {
	// Symbol is written beside every amount ("€", "£"); "" for none.
	Symbol string
	// Code is the ISO 4217 code ("EUR"), for exports; "" when not set.
	Code string
	// Whole marks a currency without minor units (0 decimals, not 2):
	// amounts are written in whole units, and a tax part is rounded to
	// one.
	Whole bool
	// Position puts the symbol before or after the amount; "" follows
	// the locale.
	Position string
}

// The places of a currency symbol.
const (
	SymbolBefore = "before"
	SymbolAfter  = "after"
)

// Unit is the smallest amount the currency has, in Money's hundredths:
// what a tax part is rounded to.
func (c Currency) Unit() Money {
	if c.Whole {
		return 100
	}
	return 1
}

// DateOrder is the order a locale writes a date's day, month and year in.
type DateOrder int

const (
	DMY DateOrder = iota // 31/12/2026
	MDY                  // 12/31/2026
	YMD                  // 2026-12-31
)

// Locale is how a language writes numbers and dates.
type Locale struct {
	// Tag names it ("de"); "" is the plain form: 1234.50, no grouping.
	Tag string
	// Name is what a manager picks it by ("German").
	Name string
	// Decimal and Thousands separate the decimals and groups of three.
	// A French thousands separator is a plain space: a receipt printer
	// has no narrow no-break one.
	Decimal, Thousands string
	// Order and DateSep write a date: 31.12.2026 is DMY and ".".
	Order   DateOrder
	DateSep string
	// Clock24 writes 21:30; false writes 9:30 PM.
	Clock24 bool
	// After puts the currency symbol after the amount unless the
	// currency says where; Space puts a space between the two.
	After, Space bool
	// Days are the weekdays' short names, Sunday first.
	Days [7]string
}

// Locales are the locales a cinema may choose, by tag.
var Locales = map[string]Locale{
	"en": {Tag: "en", Name: "English", Decimal: ".", Thousands: ",", Order: DMY, DateSep: "/", Clock24: true,
		Days: [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}},
	"en-US": {Tag: "en-US", Name: "English (US)", Decimal: ".", Thousands: ",", Order: MDY, DateSep: "/", Clock24: false,
		Days: [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}},
	"de": {Tag: "de", Name: "Deutsch", Decimal: ",", Thousands: ".", Order: DMY, DateSep: ".", Clock24: true, After: true, Space: true,
		Days: [7]string{"So", "Mo", "Di", "Mi", "Do", "Fr", "Sa"}},
	"fr": {Tag: "fr", Name: "Français", Decimal: ",", Thousands: " ", Order: DMY, DateSep: "/", Clock24: true, After: true, Space: true,
		Days: [7]string{"dim", "lun", "mar", "mer", "jeu", "ven", "sam"}},
	"nl": {Tag: "nl", Name: "Nederlands", Decimal: ",", Thousands: ".", Order: DMY, DateSep: "-", Clock24: true, Space: true,
		Days: [7]string{"zo", "ma", "di", "wo", "do", "vr", "za"}},
	"es": {Tag: "es", Name: "Español", Decimal: ",", Thousands: ".", Order: DMY, DateSep: "/", Clock24: true, After: true, Space: true,
		Days: [7]string{"dom", "lun", "mar", "mié", "jue", "vie", "sáb"}},
}

// LocaleTags lists the locales' tags, sorted.
func LocaleTags() []string { return []string{"de", "en", "en-US", "es", "fr", "nl"} }

// Formatter writes amounts, tax rates and dates the cinema's way. The
// zero Formatter is the plain form: Money.String, a rate as "20 %", dates
// as "Mon 2 Jan 2006 15:04".
type Formatter struct {
	Currency Currency
	Locale   Locale
}

// Money writes an amount with the currency's symbol where the locale or
// the currency puts it: "12,50 €", "£12.50", "-€ 2,50". A negative amount
// starts with its sign.
func (f Formatter) Money(m Money) string {
	num := f.Amount(m.abs())
	if sym := f.Currency.Symbol; sym != "" {
		sep := ""
		if f.Locale.Space {
			sep = " "
		}
		after := f.Locale.After
		switch f.Currency.Position {
		case SymbolBefore:
			after = false
		case SymbolAfter:
			after = true
		}
		if after {
			num = num + sep + sym
		} else {
			num = sym + sep + num
		}
	}
	if m < 0 {
		return "-" + num
	}
	return num
}

// Amount writes an amount's number alone, in the locale's separators
// and the currency's decimals: "1.234,50". A currency without decimals
// writes whole units, rounded half up.
func (f Formatter) Amount(m Money) string {
	neg := m < 0
	u := uint64(m.abs())
	dec := f.Locale.Decimal
	if dec == "" {
		dec = "."
	}
	var s string
	if f.Currency.Whole {
		s = group(strconv.FormatUint((u+50)/100, 10), f.Locale.Thousands)
	} else {
		s = group(strconv.FormatUint(u/100, 10), f.Locale.Thousands) + dec + string(rune('0'+u%100/10)) + string(rune('0'+u%10))
	}
	if neg {
		return "-" + s
	}
	return s
}

// abs is m without its sign (MaxMoney is far from int64's edge).
func (m Money) abs() Money {
	if m < 0 {
		return -m
	}
	return m
}

// group puts sep between every three digits of whole, from the right.
func group(whole, sep string) string {
	if sep == "" || len(whole) <= 3 {
		return whole
	}
	var b strings.Builder
	lead := len(whole) % 3
	if lead > 0 {
		b.WriteString(whole[:lead])
	}
	for i := lead; i < len(whole); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(whole[i : i+3])
	}
	return b.String()
}

// Rate writes a tax rate with the locale's decimal separator: "20 %",
// "5,5 %".
func (f Formatter) Rate(r Rate) string {
	s := r.number()
	if d := f.Locale.Decimal; d != "" && d != "." {
		s = strings.Replace(s, ".", d, 1)
	}
	return s + " %"
}

// Date writes t's date in the locale's order ("31.12.2026"); the plain
// form is "2026-12-31".
func (f Formatter) Date(t time.Time) string {
	l := f.Locale
	if l.Tag == "" {
		return t.Format(time.DateOnly)
	}
	y, m, d := t.Date()
	dd, mm, yyyy := pad2(d), pad2(int(m)), strconv.Itoa(y)
	switch l.Order {
	case MDY:
		return mm + l.DateSep + dd + l.DateSep + yyyy
	case YMD:
		return yyyy + l.DateSep + mm + l.DateSep + dd
	}
	return dd + l.DateSep + mm + l.DateSep + yyyy
}

// Time writes t's time of day: "21:30", or "9:30 PM" on a 12-hour clock.
func (f Formatter) Time(t time.Time) string {
	if f.Locale.Tag != "" && !f.Locale.Clock24 {
		return t.Format("3:04 PM")
	}
	return t.Format("15:04")
}

// DateTime writes a day and time as printouts do: "Mon 2 Jan 2006 15:04"
// in the plain form, else the weekday, the date in the locale's order and
// the time ("Mo 31.12.2026 21:30").
func (f Formatter) DateTime(t time.Time) string {
	if f.Locale.Tag == "" {
		return t.Format("Mon 2 Jan 2006 15:04")
	}
	return f.Locale.Days[t.Weekday()] + " " + f.Date(t) + " " + f.Time(t)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
