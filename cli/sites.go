package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"boxoffice/booking"
)

// Sites (issue 14): the cinemas of a chain on PostgreSQL. The global
// --site NAME names the site a command works at: where the counter sells,
// where hall add puts its halls, terminal add its terminal and staff add
// its person, and what a report counts. Without it the counter and the
// reports cover every site, and what is made goes to site 1. The embedded
// SQLite store is one site, and --site accepts only its name (or 1).

func siteCommand() *command {
	return &command{name: "site", json: machine, missing: "usage: boxoffice site add NAME | site list",
		subs: []*command{
			{name: "add", args: "NAME", short: "add a cinema to the chain (PostgreSQL)", run: (*env).siteAdd},
			{name: "list", args: "[--json]", short: "the sites, as `boxoffice sites`", run: (*env).siteList},
		}}
}

func (c *env) siteAdd(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice site add NAME")
	}
	name, err := booking.ValidSiteName(pos[0])
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		site, err := st.AddSite(c.ctx, booking.System, name)
		if err != nil {
			return err
		}
		c.say("Added site %d: %s.", site.ID, site.Name)
		return nil
	})
}

func (c *env) siteList(pos []string) error {
	if len(pos) != 0 {
		return usagef("usage: boxoffice sites [--json]")
	}
	return c.withStore(func(st backend) error {
		list, err := st.Sites(c.ctx, booking.System)
		if err != nil {
			return err
		}
		c.print(siteView(list))
		return nil
	})
}

type siteView []booking.Site

type siteJSON struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

func (v siteView) jsonValue() any {
	out := make([]siteJSON, 0, len(v))
	for _, s := range v {
		out = append(out, siteJSON{s.ID, booking.Clean(s.Name)})
	}
	return out
}

func (v siteView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSITE")
	for _, s := range v {
		fmt.Fprintf(tw, "%d\t%s\n", s.ID, booking.Clean(s.Name))
	}
	tw.Flush()
}

// site is the site --site names on st: ok false without --site. Every
// command resolves it before it writes anything.
func (c *env) site(st backend) (site booking.Site, ok bool, err error) {
	if c.siteFlag == "" {
		return booking.Site{}, false, nil
	}
	site, err = c.siteNamed(st, c.siteFlag)
	return site, err == nil, err
}

// siteNamed finds a site by name or number.
func (c *env) siteNamed(st backend, name string) (booking.Site, error) {
	list, err := st.Sites(c.ctx, booking.System)
	if err != nil {
		return booking.Site{}, err
	}
	site, err := booking.SiteByName(list, name)
	if err != nil && len(list) == 1 {
		return booking.Site{}, booking.Errorf(booking.EInvalid, "There is no site %q: this cinema is one site, %s. %s",
			booking.CleanLine(name, 60), list[0].Name, booking.ErrorMessage(booking.ErrOneSite))
	}
	return site, err
}

// siteNames maps site ids to names when there is more than one site, so
// a list shows a site column only for a chain; nil for a single cinema.
func (c *env) siteNames(st backend) (map[int64]string, error) {
	list, err := st.Sites(c.ctx, booking.System)
	if err != nil || len(list) < 2 {
		return nil, err
	}
	names := map[int64]string{booking.AllSites: "all"}
	for _, s := range list {
		names[s.ID] = booking.Clean(s.Name)
	}
	return names, nil
}

// staffSite is staff site NAME SITE|all: where a member of staff works.
func (c *env) staffSite(pos []string) error {
	if len(pos) != 2 {
		return usagef("usage: boxoffice staff site NAME SITE|all")
	}
	return c.withStore(func(st backend) error {
		id, where := booking.AllSites, "every site"
		if !strings.EqualFold(pos[1], "all") {
			site, err := c.siteNamed(st, pos[1])
			if err != nil {
				return err
			}
			id, where = site.ID, site.Name
		}
		if err := st.SetStaffSite(c.ctx, booking.System, pos[0], id); err != nil {
			return err
		}
		c.say("%s works at %s.", booking.CleanLine(pos[0], 40), where)
		return nil
	})
}

// terminalSite is terminal site NAME SITE: where a terminal sells.
func (c *env) terminalSite(pos []string) error {
	if len(pos) != 2 {
		return usagef("usage: boxoffice terminal site NAME SITE")
	}
	return c.withStore(func(st backend) error {
		site, err := c.siteNamed(st, pos[1])
		if err != nil {
			return err
		}
		t, err := st.SetTerminalSite(c.ctx, booking.System, pos[0], site.ID)
		if err != nil {
			return err
		}
		c.say("Terminal %s is at %s: its counter sells %s's programme.", t.Name, site.Name, site.Name)
		return nil
	})
}

// atSite is " at NAME" for a message when --site named a site.
func atSite(site booking.Site, ok bool) string {
	if !ok {
		return ""
	}
	return " at " + site.Name
}

// The lists of a chain: halls, staff and terminals with a site column,
// printed instead of the plain lists only when there is more than one
// site, so a single cinema sees what it always saw.

type hallSitesView struct {
	halls []booking.Hall
	sites map[int64]string
}

func (v hallSitesView) jsonValue() any {
	type row struct {
		hallJSON
		Site string `json:"site"`
	}
	out := make([]row, 0, len(v.halls))
	for _, h := range v.halls {
		out = append(out, row{hallJSON{h.ID, booking.Clean(h.Name), len(h.Rows), len(h.Seats)}, v.sites[h.Site]})
	}
	return out
}

func (v hallSitesView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tHALL\tROWS\tSEATS\tSITE")
	for _, h := range v.halls {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\n", h.ID, booking.Clean(h.Name), len(h.Rows), len(h.Seats), v.sites[h.Site])
	}
	tw.Flush()
}

type staffSitesView struct {
	staff []booking.Staff
	sites map[int64]string
}

func (v staffSitesView) jsonValue() any {
	type row struct {
		staffJSON
		Site string `json:"site"`
	}
	out := make([]row, 0, len(v.staff))
	for _, st := range v.staff {
		out = append(out, row{staffJSON{booking.Clean(st.Name), st.Role.String(), st.HasKey, st.Disabled, st.Locked}, v.sites[st.Site]})
	}
	return out
}

func (v staffSitesView) writeText(w io.Writer) {
	var b strings.Builder
	staffView(v.staff).writeText(&b)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, line := range lines {
		site := "SITE"
		if i > 0 {
			site = v.sites[v.staff[i-1].Site]
		}
		fmt.Fprintf(tw, "%s\t%s\n", line, site)
	}
	tw.Flush()
}

type terminalSitesView struct {
	terms []booking.Terminal
	sites map[int64]string
}

func (v terminalSitesView) jsonValue() any {
	type row struct {
		Name string `json:"name"`
		Site string `json:"site"`
	}
	out := make([]row, 0, len(v.terms))
	for _, t := range v.terms {
		out = append(out, row{booking.Clean(t.Name), v.sites[t.Site]})
	}
	return out
}

func (v terminalSitesView) writeText(w io.Writer) {
	for _, t := range v.terms {
		line := booking.Clean(t.Name) + "  site " + v.sites[t.Site]
		if t.Printer != "" {
			line += "  printer " + booking.Clean(t.Printer)
		}
		fmt.Fprintln(w, line)
	}
}
