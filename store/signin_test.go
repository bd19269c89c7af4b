package store

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// The built-in dummy hash is a real bcrypt hash at the default cost, so an
// unknown name costs what a wrong PIN costs.
func TestDummyHash_CostsAWrongPIN(t *testing.T) {
	for _, cost := range []int{0, bcrypt.DefaultCost, bcrypt.MinCost} {
		s := New(nil, Options{PINCost: cost})
		h, err := s.dummyHash()
		if err != nil {
			t.Fatal(err)
		}
		want := cost
		if want == 0 {
			want = bcrypt.DefaultCost
		}
		if got, err := bcrypt.Cost(h); err != nil || got != want {
			t.Errorf("PINCost %d: a dummy hash of cost %d, %v", cost, got, err)
		}
	}
}
