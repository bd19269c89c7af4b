package booking

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Sites (issue 14): a chain has several cinemas. A hall belongs to one
// site, a registered terminal to one, and a member of staff to one or to
// all of them; an Actor carries the site its session works at, so a
// counter lists and sells only its own site's programme and a report may
// be asked for one site. The embedded SQLite store is one cinema: one
// site, MainSite, and nothing about it changes.

// Site is one cinema of a chain.
type Site struct {
	ID   int64
	Name string
}

// MainSite is the first site: every hall and terminal of a single
// cinema, and the site of a hall or terminal made without naming one.
const MainSite int64 = 1

// AllSites, as a member of staff's or an actor's site, is every site.
const AllSites int64 = 0

// maxSiteName is the longest site name, as a hall's.
const maxSiteName = maxHallName

// ValidSiteName returns a site name cleaned for storing, or refuses one
// that is empty, too long or that cleaning would change beyond trimming
// its spaces (control characters, invalid UTF-8).
func ValidSiteName(name string) (string, error) {
	clean := CleanLine(name, maxSiteName)
	if clean == "" || clean != strings.TrimSpace(name) || !utf8.ValidString(name) || utf8.RuneCountInString(clean) > maxSiteName {
		return "", Errorf(EInvalid, "A site's name has 1 to %d printable characters.", maxSiteName)
	}
	return clean, nil
}

// ErrOneSite is the embedded SQLite store refusing a second site.
var ErrOneSite = Errorf(EInvalid, "A cinema on the embedded SQLite store is one site; a chain of cinemas runs on PostgreSQL (--db postgres://…).")

// SiteServes reports whether a session working at actorSite (AllSites:
// every one) may sell a show of a hall at showSite.
func SiteServes(actorSite, showSite int64) bool {
	return actorSite == AllSites || actorSite == showSite
}

// ErrOtherSite refuses a counter selling, or opening, a show of another
// site than its own.
func ErrOtherSite(showID int64) error {
	return Errorf(ENotFound, "Show %d is not on this site's programme.", showID)
}

// SiteByName finds a site by its name, case-insensitively, or by its
// number ("2"); ENotFound naming the sites there are otherwise.
func SiteByName(sites []Site, name string) (Site, error) {
	want := strings.TrimSpace(name)
	for _, s := range sites {
		if strings.EqualFold(s.Name, want) || strconv.FormatInt(s.ID, 10) == want {
			return s, nil
		}
	}
	names := make([]string, len(sites))
	for i, s := range sites {
		names[i] = s.Name
	}
	return Site{}, Errorf(ENotFound, "There is no site %q; the sites are: %s.", CleanLine(name, 60), strings.Join(names, ", "))
}

// Sites are the cinemas of a chain. Halls get their site when they are
// made (Hall.Site in AddHall; 0 is MainSite).
type Sites interface {
	// Sites lists the sites by id; a single cinema has one, MainSite.
	// Needs ActionViewShows.
	Sites(ctx context.Context, actor Actor) ([]Site, error)
	// AddSite adds a site to a chain. Needs ActionManageSites. EInvalid
	// for a bad name (ValidSiteName) or, on the embedded SQLite store,
	// always (ErrOneSite); EConflict for a name in use, in any case.
	AddSite(ctx context.Context, actor Actor, name string) (Site, error)
	// SetTerminalSite moves a registered terminal to a site; its
	// sessions opened from then on work there. Needs ActionManageStaff.
	// ENotFound for the terminal or the site.
	SetTerminalSite(ctx context.Context, actor Actor, name string, site int64) (*Terminal, error)
	// SetStaffSite sets the site a member of staff works at (AllSites:
	// every one); a sign-in at a terminal of another site is refused from
	// then on. Needs ActionManageStaff. ENotFound for the name or the
	// site.
	SetStaffSite(ctx context.Context, actor Actor, name string, site int64) error
}

// ErrNoSite refuses a site id nobody made.
func ErrNoSite(id int64) error {
	return Errorf(ENotFound, "There is no site %d.", id)
}
