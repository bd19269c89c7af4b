package booking

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	// The zone database goes into the binary: a time zone setting is
	// checked and read the same on a machine without one installed.
	_ "time/tzdata"
	"unicode/utf8"
)

// The cinema's settings, kept in the database: its name, address and tax
// id for the head of every printout, its currency and locale for every
// amount and date, its time zone for every "today", and a receipt footer.
// Each is a key with a value, at a site: the cinema's own (site 0,
// AllSites) and, on a chain, a site's own over it. A site reads its own
// value, else the cinema's, else the key's default (ResolveCinema). Every
// key's rule is here, once: an unknown key or a bad value is refused
// with a message that says what would do.

// A setting's keys.
const (
	SetName     = "cinema.name"
	SetAddress  = "cinema.address"
	SetTaxID    = "cinema.tax_id"
	SetSymbol   = "currency.symbol"
	SetCode     = "currency.code"
	SetDecimals = "currency.decimals"
	SetPosition = "currency.position"
	SetLocale   = "locale"
	SetTimeZone = "timezone"
	SetFooter   = "receipt.footer"
	SetTaxLabel = "tax.label"
	// SetIDAbove is the age above which a film's tickets need an ID
	// check at the counter (books.go NeedsID).
	SetIDAbove = "rating.id_above"
)

// MaxSettingValue bounds a value before it is read any further.
const MaxSettingValue = 400

// lineSep separates the lines of an address or a footer typed on one
// line: "12 High Street | Leeds".
const lineSep = "|"

// maxPrintLine is a printed line's width (a receipt's 42 columns).
const maxPrintLine = 42

// settingSpec is one key: what it is for, what it holds when nobody set
// it, and its check, which returns the value as it is stored.
type settingSpec struct {
	key, about, def string
	check           func(v string) (string, error)
}

// settingSpecs is every key, in the order they are listed.
var settingSpecs = []settingSpec{
	{SetName, "the cinema's name, at the head of tickets and receipts", "", oneLine(SetName, 40)},
	{SetAddress, "its address, up to 4 lines of 42 separated by |", "", lines(SetAddress, 4)},
	{SetTaxID, "its VAT or tax number, on receipts", "", oneLine(SetTaxID, 40)},
	{SetSymbol, "the currency's symbol beside amounts (€, £, $); empty for none", "", oneLine(SetSymbol, 4)},
	{SetCode, "the currency's ISO 4217 code (EUR, GBP), for exports", "", checkCode},
	{SetDecimals, "the currency's decimals: 2, or 0 for whole units", "2", checkDecimals},
	{SetPosition, "the symbol before or after the amount; empty: as the locale writes it", "", checkPosition},
	{SetLocale, "how numbers and dates are written: " + strings.Join(LocaleTags(), ", ") + "; empty: plain 1234.50", "", checkLocale},
	{SetTimeZone, "the IANA time zone of the days, shows and reports (Europe/Paris); empty: the machine's", "", checkZone},
	{SetFooter, "the receipt's last lines, up to 3 of 42 separated by |", "", lines(SetFooter, 3)},
	{SetTaxLabel, "what the tax is called on receipts and reports (VAT, MwSt, TVA)", "VAT", oneLine(SetTaxLabel, 12)},
	{SetIDAbove, "films rated above this age ask the clerk to check ID (15 and 18 films at 12)", strconv.Itoa(DefaultIDAbove), checkAge},
}

// SettingKeys lists every key, in their order.
func SettingKeys() []string {
	out := make([]string, len(settingSpecs))
	for i, s := range settingSpecs {
		out[i] = s.key
	}
	return out
}

// SettingAbout says what a key is for; "" for an unknown one.
func SettingAbout(key string) string {
	if s, ok := specOf(key); ok {
		return s.about
	}
	return ""
}

func specOf(key string) (settingSpec, bool) {
	i := slices.IndexFunc(settingSpecs, func(s settingSpec) bool { return s.key == key })
	if i < 0 {
		return settingSpec{}, false
	}
	return settingSpecs[i], true
}

// ErrUnknownSetting refuses a key nobody made, naming the keys there are.
func ErrUnknownSetting(key string) error {
	return Errorf(EInvalid, "There is no setting %q; the settings are: %s.", CleanLine(key, 40), strings.Join(SettingKeys(), ", "))
}

// ValidSetting checks value for key and returns it as stored; "" (after
// trimming) is always allowed and puts the key back to the cinema's
// value or its default. EInvalid for an unknown key or a bad value.
func ValidSetting(key, value string) (string, error) {
	spec, ok := specOf(strings.TrimSpace(key))
	if !ok {
		return "", ErrUnknownSetting(key)
	}
	if len(value) > MaxSettingValue {
		return "", Errorf(EInvalid, "A setting's value is at most %d bytes.", MaxSettingValue)
	}
	v := strings.TrimSpace(value)
	if v == "" {
		return "", nil
	}
	if !utf8.ValidString(v) {
		return "", Errorf(EInvalid, "%s: the value is not text.", spec.key)
	}
	return spec.check(v)
}

// oneLine allows n printable characters.
func oneLine(key string, n int) func(string) (string, error) {
	return func(v string) (string, error) {
		c := CleanLine(v, n)
		if c != v || utf8.RuneCountInString(v) > n {
			return "", Errorf(EInvalid, "%s is one line of at most %d printable characters.", key, n)
		}
		return c, nil
	}
}

// lines allows up to n lines of a printed line's width, separated by |.
func lines(key string, n int) func(string) (string, error) {
	return func(v string) (string, error) {
		parts := strings.Split(v, lineSep)
		if len(parts) > n {
			return "", Errorf(EInvalid, "%s has at most %d lines, separated by %s.", key, n, lineSep)
		}
		for i, p := range parts {
			p = strings.TrimSpace(p)
			if c := CleanLine(p, maxPrintLine); c != p || utf8.RuneCountInString(p) > maxPrintLine {
				return "", Errorf(EInvalid, "%s: each line is at most %d printable characters (line %d is not).", key, maxPrintLine, i+1)
			}
			parts[i] = p
		}
		return strings.Join(parts, " "+lineSep+" "), nil
	}
}

func checkCode(v string) (string, error) {
	u := strings.ToUpper(v)
	if len(u) != 3 || strings.Trim(u, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", Errorf(EInvalid, "%s is a currency's three-letter ISO code, like EUR or GBP, not %q.", SetCode, CleanLine(v, 20))
	}
	return u, nil
}

func checkDecimals(v string) (string, error) {
	if v != "0" && v != "2" {
		return "", Errorf(EInvalid, "%s is 2, or 0 for a currency of whole units (amounts are kept in hundredths), not %q.", SetDecimals, CleanLine(v, 20))
	}
	return v, nil
}

func checkPosition(v string) (string, error) {
	switch l := strings.ToLower(v); l {
	case SymbolBefore, SymbolAfter:
		return l, nil
	}
	return "", Errorf(EInvalid, "%s is before or after, not %q.", SetPosition, CleanLine(v, 20))
}

func checkLocale(v string) (string, error) {
	for _, tag := range LocaleTags() {
		if strings.EqualFold(tag, strings.ReplaceAll(v, "_", "-")) {
			return tag, nil
		}
	}
	return "", Errorf(EInvalid, "%s is one of %s, not %q.", SetLocale, strings.Join(LocaleTags(), ", "), CleanLine(v, 20))
}

// checkAge allows an age of 0 to 21.
func checkAge(v string) (string, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 21 {
		return "", Errorf(EInvalid, "%s is an age from 0 to 21, like 12.", SetIDAbove)
	}
	return strconv.Itoa(n), nil
}

func checkZone(v string) (string, error) {
	// time.LoadLocation also reads a file path or "Local"; a zone is a
	// name of the IANA database and nothing else.
	if strings.HasPrefix(v, "/") || strings.Contains(v, "..") || strings.EqualFold(v, "Local") || CleanLine(v, 60) != v {
		return "", errZone(v)
	}
	if _, err := time.LoadLocation(v); err != nil {
		return "", errZone(v)
	}
	return v, nil
}

func errZone(v string) error {
	return Errorf(EInvalid, "%s is an IANA time zone name like Europe/Paris or America/New_York; %q is none.", SetTimeZone, CleanLine(v, 60))
}

// SettingRow is one value as stored: a key at a site (AllSites: the
// cinema's own).
type SettingRow struct {
	Key   string
	Site  int64
	Value string
}

// Setting is a key's value in force at a site, and where it comes from.
type Setting struct {
	Key, Value string
	// From is "site" (the site's own), "cinema" (the cinema's) or
	// "default".
	From  string
	About string
}

// Cinema is the settings in force at one site: what every printout,
// screen and report of it reads.
type Cinema struct {
	Site                  int64
	Name, TaxID, TaxLabel string
	Address, Footer       []string // lines
	Currency              Currency
	Locale                Locale
	TimeZone              string // "" for the machine's
	IDAbove               int    // films rated above it need an ID check
	values                map[string]Setting
	loc                   *time.Location
}

// ResolveCinema works out site's settings from the rows stored: the
// site's own value of a key, else the cinema's (site AllSites), else its
// default. A stored value that no longer passes its key's check (a zone
// the machine's database lacks) reads as unset.
func ResolveCinema(rows []SettingRow, site int64) *Cinema {
	c := &Cinema{Site: site, values: map[string]Setting{}}
	for _, spec := range settingSpecs {
		v := Setting{Key: spec.key, Value: spec.def, From: "default", About: spec.about}
		if val, ok := stored(rows, spec, AllSites); ok {
			v.Value, v.From = val, "cinema"
		}
		if val, ok := stored(rows, spec, site); ok && site != AllSites {
			v.Value, v.From = val, "site"
		}
		c.values[spec.key] = v
	}
	get := func(k string) string { return c.values[k].Value }
	c.Name, c.TaxID, c.TaxLabel = get(SetName), get(SetTaxID), get(SetTaxLabel)
	c.Address, c.Footer = splitLines(get(SetAddress)), splitLines(get(SetFooter))
	c.Currency = Currency{Symbol: get(SetSymbol), Code: get(SetCode), Whole: get(SetDecimals) == "0", Position: get(SetPosition)}
	c.Locale = Locales[get(SetLocale)]
	c.TimeZone = get(SetTimeZone)
	c.IDAbove, _ = strconv.Atoi(get(SetIDAbove))
	if c.TimeZone != "" {
		c.loc, _ = time.LoadLocation(c.TimeZone)
	}
	return c
}

// stored is spec's value kept at site, when it still passes its check.
func stored(rows []SettingRow, spec settingSpec, site int64) (string, bool) {
	for _, r := range rows {
		if r.Key == spec.key && r.Site == site && r.Value != "" {
			if v, err := spec.check(r.Value); err == nil {
				return v, true
			}
		}
	}
	return "", false
}

func splitLines(v string) []string {
	if v == "" {
		return nil
	}
	parts := strings.Split(v, lineSep)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// Settings lists every key's value in force, in the keys' order.
func (c *Cinema) Settings() []Setting {
	out := make([]Setting, 0, len(settingSpecs))
	for _, spec := range settingSpecs {
		out = append(out, c.Get(spec.key))
	}
	return out
}

// Get is one key's value in force; an unknown key reads as empty.
func (c *Cinema) Get(key string) Setting {
	if c == nil || c.values == nil {
		if spec, ok := specOf(key); ok {
			return Setting{Key: key, Value: spec.def, From: "default", About: spec.about}
		}
		return Setting{Key: key}
	}
	return c.values[key]
}

// Formatter writes the site's money and dates.
func (c *Cinema) Formatter() Formatter {
	if c == nil {
		return Formatter{}
	}
	return Formatter{Currency: c.Currency, Locale: c.Locale}
}

// Location is the site's time zone: its own, the cinema's, or, when
// neither is set, the machine's (time.Local).
func (c *Cinema) Location() *time.Location {
	if c == nil || c.loc == nil {
		return time.Local
	}
	return c.loc
}

// Zoned reports whether a zone is set for the site (its own or the
// cinema's); without one, days follow the caller's dates as they always
// did.
func (c *Cinema) Zoned() bool { return c != nil && c.loc != nil }

// InZone is the midnight of t's date (in t's own location) in the site's
// zone: how a day named by a date — a report's, a day's shows — is read
// at a site. Without a zone it is t's own midnight.
func (c *Cinema) InZone(t time.Time) time.Time {
	if !c.Zoned() {
		return DayStart(t)
	}
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, c.loc)
}

// Today is the midnight that starts now's day at the site.
func (c *Cinema) Today(now time.Time) time.Time { return DayStart(now.In(c.Location())) }

// Settings is the cinema's settings, kept in the database.
type Settings interface {
	// Cinema returns the settings in force at site (AllSites: the
	// cinema's own, every site's fallback). Needs ActionViewShows: every
	// counter and the kiosk write amounts with them. ENotFound for a site
	// nobody made.
	Cinema(ctx context.Context, actor Actor, site int64) (*Cinema, error)
	// SetSetting sets key to value at site (AllSites: the cinema's own),
	// or with an empty value removes it there, so the cinema's value or
	// the default is in force again; it returns the value in force then.
	// Needs ActionManageSettings; one audit row saying what it was and
	// what it is. EInvalid for an unknown key or a bad value
	// (ValidSetting); ENotFound for a site nobody made.
	SetSetting(ctx context.Context, actor Actor, site int64, key, value string) (Setting, error)
}

// ActionManageSettings is changing the cinema's settings and tax rates:
// what every receipt and report says, a manager's.
const ActionManageSettings Action = "manage_settings"

// AuditSettings is a setting or a tax rate changed.
const AuditSettings AuditAction = "settings_change"
