package pg

import (
	"context"

	"boxoffice/booking"
)

// siteServes refuses a session at one site acting on a show of a hall at
// another (booking.SiteServes): what a counter may hold (HoldBest; Hold
// is to call it too, after its hallOfShow).
func (s *Store) siteServes(ctx context.Context, actor booking.Actor, showID int64) error {
	if actor.Site == booking.AllSites {
		return nil
	}
	hall, err := s.hallOfShow(ctx, showID)
	if err != nil {
		return err
	}
	if !booking.SiteServes(actor.Site, hall.Site) {
		return booking.ErrOtherSite(showID)
	}
	return nil
}
