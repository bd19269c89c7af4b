package booking

import (
	"crypto/rand"
	"strings"
)

// NumberAlphabet is the characters of booking and reservation numbers: it
// leaves out 0/O, 1/I/L and U so a number read over the counter or the
// phone cannot be misheard or mistyped.
const NumberAlphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewBookingNumber returns a random number like BO-7KQ2X9TD: 30^8 ≈ 6.6e11
// values, so guessing someone's booking is hopeless. Every backend makes
// its numbers here, so a number means the same on either.
func NewBookingNumber() string {
	var b [8]byte
	rand.Read(b[:])
	out := make([]byte, 0, 11)
	out = append(out, "BO-"...)
	for _, x := range b {
		// 256 is not a multiple of 30; the bias (<2%) does not matter
		// for an identifier that is also checked for uniqueness.
		out = append(out, NumberAlphabet[int(x)%len(NumberAlphabet)])
	}
	return string(out)
}

// NormalizeNumber reads a booking number as a clerk may type it —
// "bo-7kq2x9td", "7KQ2X9TD", with spaces — in its stored form.
func NormalizeNumber(n string) string {
	n = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(n), " ", ""))
	if !strings.HasPrefix(n, "BO-") {
		n = "BO-" + strings.TrimPrefix(n, "BO")
	}
	return n
}

// IsBookingNumber reports whether n (normalized) has the shape of a
// booking number: BO- and eight characters of NumberAlphabet.
func IsBookingNumber(n string) bool {
	rest, ok := strings.CutPrefix(n, "BO-")
	if !ok || len(rest) != 8 {
		return false
	}
	for _, r := range rest {
		if !strings.ContainsRune(NumberAlphabet, r) {
			return false
		}
	}
	return true
}

// ErrNoBooking is the answer for a number that names no booking — and for
// one the asker may not see, which must read exactly the same.
func ErrNoBooking(number string) error {
	return Errorf(ENotFound, "No booking %s.", CleanLine(number, 16))
}
