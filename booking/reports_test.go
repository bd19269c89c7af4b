package booking_test

import (
	"testing"
	"time"
	_ "time/tzdata" // Europe/London wherever the test runs

	"boxoffice/booking"
)

// A local day is not 24 hours where the clocks change: the range's days
// start at each local midnight, and the last one ends at the midnight
// after it.
func TestReportRange_Days(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	r := booking.ReportRange{From: time.Date(2026, 10, 24, 15, 0, 0, 0, london), To: time.Date(2026, 10, 26, 9, 0, 0, 0, london)}
	days := r.Days()
	if len(days) != 3 {
		t.Fatalf("days %v", days)
	}
	for i, d := range days {
		if d.Hour() != 0 || d.Minute() != 0 || d.Day() != 24+i {
			t.Errorf("day %d starts %v", i, d)
		}
	}
	if got := days[2].Sub(days[1]); got != 25*time.Hour {
		t.Errorf("the day the clocks go back lasts %v", got)
	}
	if !r.Start().Equal(days[0]) || !r.End().Equal(time.Date(2026, 10, 27, 0, 0, 0, 0, london)) {
		t.Errorf("range %v..%v", r.Start(), r.End())
	}
}

func TestReportRange_Validate(t *testing.T) {
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		r  booking.ReportRange
		ok bool
	}{
		{booking.ReportRange{From: d(2026, 12, 1), To: d(2026, 12, 1)}, true},
		{booking.ReportRange{From: d(2025, 12, 2), To: d(2026, 12, 1)}, true},  // 365 days
		{booking.ReportRange{From: d(2023, 12, 1), To: d(2024, 11, 30)}, true}, // 366, a leap year
		{booking.ReportRange{From: d(2025, 11, 30), To: d(2026, 12, 1)}, false},
		{booking.ReportRange{From: d(2026, 12, 2), To: d(2026, 12, 1)}, false},
		{booking.ReportRange{To: d(2026, 12, 1)}, false},
	} {
		err := tc.r.Validate()
		if (err == nil) != tc.ok || (err != nil && booking.ErrorCode(err) != booking.EInvalid) {
			t.Errorf("%v..%v: %v", tc.r.From, tc.r.To, err)
		}
	}
}

func TestParseTakingsBy(t *testing.T) {
	if by, err := booking.ParseTakingsBy(""); by != booking.ByDay || err != nil {
		t.Errorf("default %q %v", by, err)
	}
	for _, by := range booking.TakingsBys() {
		if got, err := booking.ParseTakingsBy(string(by)); got != by || err != nil {
			t.Errorf("%s: %q %v", by, got, err)
		}
	}
	if _, err := booking.ParseTakingsBy("week"); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("week: %v", err)
	}
	if _, err := booking.ParseOccupancyBy("film"); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("film: %v", err)
	}
}
