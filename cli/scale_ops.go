package cli

import (
	"context"
	"fmt"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
)

// scaleOps are the operations bench --scale measures, in the order a
// counter meets them.
func scaleOps() []scaleOp {
	clerk := booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager, Terminal: "bench"}
	ctx := context.Background()
	ops := openingOps(ctx, clerk)
	ops = append(ops, lookupOps(ctx, clerk)...)
	ops = append(ops, sellingOps(ctx, clerk)...)
	return append(ops, reportOps(ctx, clerk)...)
}

// openingOps open the store, sign in and read the programme.
func openingOps(ctx context.Context, clerk booking.Actor) []scaleOp {
	return []scaleOp{
		{name: "open + close the store", run: func(st *scaleSide, i int) error {
			key, _, err := st.dir.ticketKeys()
			if err != nil {
				return err
			}
			s, err := db.Open(st.dir.dbPath(), db.Options{TicketKey: key})
			if err != nil {
				return err
			}
			return s.Close()
		}},
		{name: "SignIn (bcrypt PIN check)", run: func(st *scaleSide, i int) error {
			_, err := st.store.SignIn(ctx, booking.SignInRequest{Name: assets.DemoUser, PIN: assets.DemoPIN})
			return err
		}},
		{name: "Shows(today)", run: func(st *scaleSide, i int) error {
			_, err := st.store.Shows(ctx, clerk, time.Now())
			return err
		}},
		{name: "Show", run: func(st *scaleSide, i int) error {
			_, err := st.store.Show(ctx, clerk, st.shows[i%len(st.shows)])
			return err
		}},
		{name: "SeatMap (after a change)", run: func(st *scaleSide, i int) error {
			_, err := st.store.SeatMap(ctx, clerk, st.shows[i%len(st.shows)], "bench")
			return err
		}, prep: func(st *scaleSide, i int) error {
			// A change to the show makes the next map a fresh read.
			h, err := st.store.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: st.shows[i%len(st.shows)], N: 1, Owner: "bench-map"})
			if err == nil {
				err = st.store.Release(ctx, clerk, h.ID, "bench-map")
			}
			if booking.ErrorCode(err) == booking.EConflict {
				return nil
			}
			return err
		}},
	}
}

// lookupOps find bookings the ways a clerk does.
func lookupOps(ctx context.Context, clerk booking.Actor) []scaleOp {
	return []scaleOp{
		{name: "Booking(number)", run: func(st *scaleSide, i int) error {
			_, err := st.store.Booking(ctx, clerk, st.pick(i).Number)
			return err
		}},
		{name: "FindBookings: booking number", run: func(st *scaleSide, i int) error {
			got, err := st.find(ctx, clerk, st.pick(i).Number)
			if err == nil && len(got) != 1 {
				err = fmt.Errorf("%s found %d bookings", st.pick(i).Number, len(got))
			}
			return err
		}},
		{name: "FindBookings: last 4 phone digits", run: func(st *scaleSide, i int) error {
			p := st.pick(i).Phone
			_, err := st.find(ctx, clerk, p[len(p)-4:])
			return err
		}},
		{name: "FindBookings: last 6 phone digits", run: func(st *scaleSide, i int) error {
			p := st.pick(i).Phone
			_, err := st.find(ctx, clerk, p[len(p)-6:])
			return err
		}},
		{name: "FindBookings: whole phone number", run: func(st *scaleSide, i int) error {
			_, err := st.find(ctx, clerk, st.pick(i).Phone)
			return err
		}},
		{name: "FindBookings: first 3 letters", run: func(st *scaleSide, i int) error {
			_, err := st.find(ctx, clerk, firstLetters(st.pick(i).Customer, 3))
			return err
		}},
		{name: "FindBookings: first and last name", run: func(st *scaleSide, i int) error {
			_, err := st.find(ctx, clerk, st.pick(i).Customer)
			return err
		}},
	}
}

// sellingOps hold, sell, cancel, sweep and run the waiting list.
func sellingOps(ctx context.Context, clerk booking.Actor) []scaleOp {
	return []scaleOp{
		{name: "Hold 2 seats + Release", run: func(st *scaleSide, i int) error {
			h, err := st.store.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: st.shows[i%len(st.shows)], N: 2, Owner: "bench-hold"})
			if booking.ErrorCode(err) == booking.EConflict {
				return nil
			}
			if err != nil {
				return err
			}
			return st.store.Release(ctx, clerk, h.ID, "bench-hold")
		}},
		{name: "a sale: HoldBest 2 + Checkout", run: func(st *scaleSide, i int) error { return st.sale(ctx, clerk, i) }},
		{name: "Cancel (a sale just made)", run: func(st *scaleSide, i int) error {
			if len(st.sold) == 0 {
				return fmt.Errorf("no sale left to cancel")
			}
			number := st.sold[0]
			st.sold = st.sold[1:]
			_, err := st.store.Cancel(ctx, clerk, booking.CancelRequest{Number: number, Reason: "bench"})
			return err
		}},
		{name: "sweeper tick (holds + waiting list)", run: func(st *scaleSide, i int) error {
			if _, err := st.store.ExpireHolds(ctx); err != nil {
				return err
			}
			if _, err := st.store.NotifyWaitlist(ctx); err != nil {
				return err
			}
			_, err := st.store.TrimChanges(ctx)
			return err
		}},
		{name: "WaitlistCalls", run: func(st *scaleSide, i int) error {
			_, err := st.store.WaitlistCalls(ctx, clerk)
			return err
		}},
		{name: "Waitlist(show)", run: func(st *scaleSide, i int) error {
			_, err := st.store.Waitlist(ctx, clerk, st.shows[i%len(st.shows)])
			return err
		}},
		{name: "AddShow refused by a clash", run: func(st *scaleSide, i int) error {
			sh, err := st.store.Show(ctx, clerk, st.live)
			if err != nil {
				return err
			}
			_, err = st.store.AddShow(ctx, clerk, sh.Film.ID, sh.HallID, sh.Starts.Add(time.Minute))
			if booking.ErrorCode(err) == booking.EConflict {
				return nil
			}
			return fmt.Errorf("a clashing show was not refused: %v", err)
		}},
	}
}
