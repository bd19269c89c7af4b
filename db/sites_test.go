package db_test

import (
	"context"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// SQLite is one cinema, one site: every hall is at site 1, and a hall, a
// report or a counter naming another site is refused. Adding a site and
// placing terminals and staff are the contract's (Sites/AddSite,
// Sites/ErrNoSite, Sites/AtTheMainSite).
func TestStore_OneSite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{})
	mgr := storetest.Manager
	halls, err := s.Halls(ctx, mgr)
	if err != nil || len(halls) == 0 {
		t.Fatal(halls, err)
	}
	for _, h := range halls {
		if h.Site != booking.MainSite {
			t.Errorf("hall %s at site %d", h.Name, h.Site)
		}
	}
	h := storetest.Hall()
	h.Name, h.Site = "Far", 2
	if _, err := s.AddHall(ctx, mgr, h); booking.ErrorMessage(err) != "There is no site 2." {
		t.Errorf("a hall at site 2: %v", err)
	}
	day := booking.ReportRange{From: storetest.FixedClock().Now(), To: storetest.FixedClock().Now(), Site: 2}
	if _, err := s.ReportShifts(ctx, mgr, day); booking.ErrorMessage(err) != "There is no site 2." {
		t.Errorf("a report of site 2: %v", err)
	}
	away := storetest.Clerk
	away.Site = 2
	if _, err := s.Hold(ctx, away, booking.HoldRequest{ShowID: 1, Seats: []string{"E5"}, Owner: "a"}); booking.ErrorMessage(err) != booking.ErrorMessage(booking.ErrOtherSite(1)) {
		t.Errorf("a hold at site 2: %v", err)
	}
}
