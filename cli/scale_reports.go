package cli

import (
	"context"
	"time"

	"boxoffice/booking"
)

// reportCalls is how many times bench --scale runs each report a side.
const reportCalls = 20

// reportOps run every report over the side's whole history, up to today:
// a week on one side, a year on the other (issue 10: each under 1 s on a
// year of data).
func reportOps(ctx context.Context, mgr booking.Actor) []scaleOp {
	history := func(st *scaleSide) booking.ReportRange {
		today := booking.DayStart(time.Now())
		return booking.ReportRange{From: today.AddDate(0, 0, 1-st.history), To: today}
	}
	var ops []scaleOp
	for _, by := range booking.TakingsBys() {
		ops = append(ops, scaleOp{name: "report takings --by " + string(by), most: reportCalls, run: func(st *scaleSide, i int) error {
			_, err := st.store.ReportTakings(ctx, mgr, booking.TakingsQuery{ReportRange: history(st), By: by})
			return err
		}})
	}
	for _, by := range []booking.OccupancyBy{booking.PerShow, booking.PerHall} {
		ops = append(ops, scaleOp{name: "report occupancy --by " + string(by), most: reportCalls, run: func(st *scaleSide, i int) error {
			_, err := st.store.ReportOccupancy(ctx, mgr, booking.OccupancyQuery{ReportRange: history(st), By: by})
			return err
		}})
	}
	return append(ops,
		scaleOp{name: "report refunds", most: reportCalls, run: func(st *scaleSide, i int) error {
			_, err := st.store.ReportRefunds(ctx, mgr, history(st))
			return err
		}},
		scaleOp{name: "report shifts", most: reportCalls, run: func(st *scaleSide, i int) error {
			_, err := st.store.ReportShifts(ctx, mgr, history(st))
			return err
		}},
		scaleOp{name: "report noshows", most: reportCalls, run: func(st *scaleSide, i int) error {
			_, err := st.store.ReportNoShows(ctx, mgr, history(st))
			return err
		}},
	)
}
