package booking

import "testing"

func TestNotEnoughFree(t *testing.T) {
	h := &Hall{Seats: []Seat{
		{ID: 1, Label: "A1"}, {ID: 2, Label: "A2"}, {ID: 3, Label: "A3"},
		{ID: 4, Label: "A4", Kind: Wheelchair}, {ID: 5, Label: "A5", Kind: Companion},
	}}
	for _, c := range []struct {
		name  string
		taken []int64
		req   HoldBestRequest
		want  string
	}{
		{"SoldOut", []int64{1, 2, 3, 4, 5}, HoldBestRequest{N: 1}, "This show is sold out."},
		{"OnlyAccessible", []int64{1, 2, 3}, HoldBestRequest{N: 1}, "Only wheelchair and companion places are free (2); hold one by hand for a customer who needs it."},
		{"SomeAndAccessible", []int64{1, 2}, HoldBestRequest{N: 4}, "Only 1 seat is free for this show, not 4 (and 2 wheelchair or companion places)."},
		{"Some", []int64{3, 4, 5}, HoldBestRequest{N: 3}, "Only 2 seats are free for this show, not 3."},
		{"Wheelchair", []int64{4}, HoldBestRequest{N: 2, Wheelchair: 1}, "No 2 seats with 1 wheelchair place free for this show."},
	} {
		t.Run(c.name, func(t *testing.T) {
			taken := func(id int64) bool {
				for _, x := range c.taken {
					if x == id {
						return true
					}
				}
				return false
			}
			err := NotEnoughFree(h, taken, c.req)
			if ErrorCode(err) != EConflict || ErrorMessage(err) != c.want {
				t.Fatalf("%v, want %q", err, c.want)
			}
		})
	}
}
