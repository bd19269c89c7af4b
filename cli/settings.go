package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
	"boxoffice/paper"
)

// settings, tax and report tax: the cinema's settings and its tax rates
// (docs/settings.md). Each key's rule is booking's (booking.ValidSetting,
// booking.ParseRate): a bad key or value is the store's message, exit 2.

const settingsLong = `With no KEY, every setting with its value in force, where that comes from
(the site's own, the cinema's, or the default) and what it is for. With KEY,
that one. With KEY VALUE, sets it (a manager's): at the --site named, else
the cinema's own, which every site without its own reads. An empty VALUE ("")
removes the value there, so the cinema's or the default is in force again.
Address and footer lines are separated by |.`

func settingsCommand() *command {
	return &command{name: "settings", args: "[KEY [VALUE]] [--site NAME] [--json]", short: "the cinema's settings: name, address, currency, locale…",
		long: settingsLong, json: machine, run: (*env).settings}
}

// settingView is one setting as the command prints it.
type settingView struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	From    string `json:"from"`
	Default string `json:"default"`
	About   string `json:"about"`
}

type settingsView []settingView

func (v settingsView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tFROM\tDEFAULT\t")
	for _, s := range v {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", s.Key, shownValue(s.Value), s.From, shownValue(s.Default))
	}
	tw.Flush()
}

func (v settingsView) jsonValue() any { return []settingView(v) }

// oneSetting prints a single key: its value alone, for a script.
type oneSetting settingView

func (s oneSetting) writeText(w io.Writer) { fmt.Fprintln(w, s.Value) }

// shownValue is a value as the table shows it: "-" for none.
func shownValue(v string) string {
	if v == "" {
		return "-"
	}
	return booking.CleanLine(v, 60)
}

func viewOf(s booking.Setting) settingView {
	return settingView{Key: s.Key, Value: booking.Clean(s.Value), From: s.From,
		Default: (*booking.Cinema)(nil).Get(s.Key).Value, About: s.About}
}

func (c *env) settings(pos []string) error {
	if len(pos) > 2 {
		return usagef("usage: boxoffice settings [KEY [VALUE]]")
	}
	// The key and value are checked before the store opens (exit 2, the
	// store's own message).
	if len(pos) >= 1 && booking.SettingAbout(strings.TrimSpace(pos[0])) == "" {
		return booking.ErrUnknownSetting(pos[0])
	}
	if len(pos) == 2 {
		if _, err := booking.ValidSetting(pos[0], pos[1]); err != nil {
			return err
		}
	}
	return c.withStore(func(st backend) error {
		site, _, err := c.site(st)
		if err != nil {
			return err
		}
		if len(pos) == 2 {
			s, err := st.SetSetting(c.ctx, booking.System, site.ID, strings.TrimSpace(pos[0]), pos[1])
			if err != nil {
				return err
			}
			c.print(oneSetting(viewOf(s)))
			return nil
		}
		cin, err := st.Cinema(c.ctx, booking.System, site.ID)
		if err != nil {
			return err
		}
		if len(pos) == 1 {
			c.print(oneSetting(viewOf(cin.Get(strings.TrimSpace(pos[0])))))
			return nil
		}
		var out settingsView
		for _, s := range cin.Settings() {
			out = append(out, viewOf(s))
		}
		c.print(out)
		return nil
	})
}

func taxCommand() *command {
	return &command{name: "tax", json: machine, missing: "usage: boxoffice tax list | tax set (--type CODE | --category CODE) RATE [--from DATE]",
		subs: []*command{
			{name: "list", args: "[--json]", short: "the tax rates in force and those set to come", run: (*env).taxList},
			{name: "set", args: "(--type CODE | --category CODE) RATE [--from DATE]", short: "a ticket type's or item category's rate, for sales from then on",
				long: "RATE is a percentage: 20, 20% or 5.5. Prices include the tax. The rate is in force\nfrom --from (a day, YYYY-MM-DD, or YYYY-MM-DD HH:MM; now by default) for the sales\nfrom then on: the sales before keep the rate they were sold at.", flags: taxSetFlags},
		}}
}

// rateView is one rate as tax list prints it.
type rateView struct {
	Kind  string `json:"kind"`
	Code  string `json:"code"`
	Rate  string `json:"rate"`
	From  string `json:"from"`
	SetBy string `json:"set_by"`
}

type ratesView []rateView

func (v ratesView) writeText(w io.Writer) {
	if len(v) == 0 {
		fmt.Fprintln(w, "No tax rates: nothing is taxed (boxoffice tax set --type adult 20).")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tCODE\tRATE\tFROM\tSET BY\t")
	for _, r := range v {
		fmt.Fprintf(tw, "%s\t%s\t%s %%\t%s\t%s\t\n", r.Kind, booking.CleanLine(r.Code, 30), r.Rate, r.From, booking.CleanLine(r.SetBy, 30))
	}
	tw.Flush()
}

func (v ratesView) jsonValue() any { return []rateView(v) }

func rateViewOf(r booking.TaxRate) rateView {
	return rateView{Kind: string(r.Key.Kind), Code: r.Key.Code, Rate: r.Rate.Percent(),
		From: r.From.In(time.Local).Format("2006-01-02 15:04"), SetBy: r.SetBy}
}

func (c *env) taxList(pos []string) error {
	if len(pos) > 0 {
		return usagef("usage: boxoffice tax list [--json]")
	}
	return c.withStore(func(st backend) error {
		rates, err := st.TaxRates(c.ctx, booking.System)
		if err != nil {
			return err
		}
		out := ratesView{}
		for _, r := range rates.Current(c.now()) {
			out = append(out, rateViewOf(r))
		}
		c.print(out)
		return nil
	})
}

func taxSetFlags(fs *flag.FlagSet) runFunc {
	typ := fs.String("type", "", "the ticket type's `CODE` (adult, child…)")
	cat := fs.String("category", "", "the item category's `CODE` (drinks, snacks…)")
	from := fs.String("from", "", "in force from `DATE`, YYYY-MM-DD or YYYY-MM-DD HH:MM (default now)")
	return func(c *env, pos []string) error { return c.taxSet(pos, *typ, *cat, *from) }
}

func (c *env) taxSet(pos []string, typ, cat, from string) error {
	const usage = "usage: boxoffice tax set (--type CODE | --category CODE) RATE [--from DATE]"
	if len(pos) != 1 || (typ == "") == (cat == "") {
		return usagef(usage)
	}
	rate, err := booking.ParseRate(pos[0])
	if err != nil {
		return err
	}
	r := booking.TaxRate{Key: booking.TaxKey{Kind: booking.TaxTicketType, Code: typ}, Rate: rate}
	if cat != "" {
		r.Key = booking.TaxKey{Kind: booking.TaxItemCategory, Code: cat}
	}
	if from != "" {
		t, err := time.ParseInLocation("2006-01-02 15:04", from, time.Local)
		if err != nil {
			if t, err = time.ParseInLocation(time.DateOnly, from, time.Local); err != nil {
				return usagef("--from %q is not a day like 2026-12-01 or a moment like 2026-12-01 18:00", booking.CleanLine(from, 20))
			}
		}
		r.From = t
	}
	return c.withStore(func(st backend) error {
		set, err := st.SetTaxRate(c.ctx, booking.System, r)
		if err != nil {
			return err
		}
		if c.jsonOut {
			c.printJSON(rateViewOf(*set))
			return nil
		}
		c.say("Tax on %s: %s from %s.", set.Key, set.Rate, set.From.In(time.Local).Format("2006-01-02 15:04"))
		return nil
	})
}

// reportTaxCmd is `report tax`: the tax by rate of a range of days.
func reportTaxCmd() *command {
	return &command{name: "tax", args: "[--from D] [--to D] [--csv | --json]", short: "the tax by rate: sales, returns, tax and net",
		flags: func(fs *flag.FlagSet) runFunc {
			a := &reportArgs{}
			fs.StringVar(&a.from, "from", "", "the first `DAY`, YYYY-MM-DD (default today)")
			fs.StringVar(&a.to, "to", "", "the last `DAY`, YYYY-MM-DD (default the first)")
			fs.BoolVar(&a.csv, "csv", false, "print CSV: a header row, the rows, a totals row")
			return func(c *env, pos []string) error { return c.reportTax(pos, a) }
		}}
}

func (c *env) reportTax(pos []string, a *reportArgs) error {
	if len(pos) > 0 {
		return usagef("report tax takes no arguments, only --from and --to")
	}
	if a.csv && c.jsonOut {
		return usagef("--csv or --json, not both")
	}
	r, err := c.reportRange(a)
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		site, _, err := c.site(st)
		if err != nil {
			return err
		}
		r.Site = site.ID
		rep, err := st.ReportTax(c.ctx, booking.System, r)
		if err != nil {
			return err
		}
		t := sheet(booking.TaxSheet(rep))
		if a.csv {
			return t.writeCSV(c.stdout)
		}
		c.print(t)
		return nil
	})
}

// printLayout is base with the site's settings and tax rates, read once
// for the job. A failed read prints with what was read (the defaults at
// worst) rather than not at all: the sale is made, its paper must come.
func (c *env) printLayout(st backend, base paper.Layout, site int64) paper.Layout {
	l, err := c.layoutFor(st, base, site)
	if err != nil {
		fmt.Fprintf(c.stderr, "boxoffice: printing with the default settings: %s\n", booking.ErrorMessage(err))
	}
	return l
}

// siteID is the site a printout reads the settings of: --site's, else
// the cinema's own (a --site nobody made prints as the cinema's).
func (c *env) siteID(st backend) int64 {
	site, _, err := c.site(st)
	if err != nil {
		return booking.AllSites
	}
	return site.ID
}
