package booking

import "testing"

func TestParseBreakdown(t *testing.T) {
	for in, want := range map[string]Money{
		"50x2 20x10":   300_00,
		"50X2, 0.50x3": 101_50,
		"  10x0  5x1 ": 5_00,
	} {
		got, err := ParseBreakdown(in)
		if err != nil || got != want {
			t.Errorf("%q = %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "50", "x2", "50x", "50x-1", "0x3", "-5x2", "50x2x3", "lots", "100x10000 50x2000"} {
		if _, err := ParseBreakdown(in); ErrorCode(err) != EInvalid {
			t.Errorf("%q: %v, want refused", in, err)
		}
	}
	if err := (CloseShiftRequest{Counted: 120_00, Breakdown: "50x2 10x1"}).Validate(); ErrorCode(err) != EInvalid {
		t.Errorf("a breakdown that does not add up: %v", err)
	}
	if err := (CloseShiftRequest{Counted: 110_00, Breakdown: "50x2 10x1"}).Validate(); err != nil {
		t.Errorf("a breakdown that adds up: %v", err)
	}
}
