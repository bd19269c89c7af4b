package tui

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/db"
)

// chainStore is a SQLite store that says it is one site of a chain of
// two: what a manager's lists of a chain look like, without PostgreSQL.
type chainStore struct{ *db.Store }

func (chainStore) Sites(context.Context, booking.Actor) ([]booking.Site, error) {
	return []booking.Site{{ID: 1, Name: "Main"}, {ID: 2, Name: "North"}}, nil
}

// The halls, staff and terminals lists show each one's site only on a
// chain; a single cinema's lists have no site column.
func TestManage_SiteColumnOnlyOnAChain(t *testing.T) {
	t.Parallel()
	for _, chain := range []bool{false, true} {
		clock := newClock()
		s := MustOpenStore(t, clock)
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		k, err := gossh.NewPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddTerminal(context.Background(), booking.System, "till-1", gossh.MarshalAuthorizedKey(k)); err != nil {
			t.Fatal(err)
		}
		var store Backend = s
		if chain {
			store = chainStore{s}
		}
		m := newTestModel(t, store, clock, "mgr-sites", 100, 30)
		for i, section := range []struct{ key, row string }{{"2", "Grand"}, {"5", "demo"}, {"6", "till-1"}} {
			if i == 0 {
				openManager(t, m, section.key)
			} else {
				press(t, m, "esc", section.key)
			}
			text := screenText(m)
			row := ""
			for _, line := range strings.Split(text, "\n") {
				if strings.Contains(line, section.row) {
					row = line
				}
			}
			site := "Main"
			if section.key == "5" {
				site = "all" // staff work at every site unless placed
			}
			if got := strings.Contains(text, "Site") && strings.Contains(row, site); got != chain {
				t.Errorf("chain %v, section %s: a site column %v:\n%s", chain, section.key, got, text)
			}
		}
	}
}
