package booking

import (
	"strconv"
	"strings"
)

// Money is an amount in minor units (cents): 1250 is 12.50. Every price,
// total, payment and refund is one; ParseMoney is the one way a typed
// amount becomes one and String the one way one is shown.
type Money int64

// MaxMoney is the largest amount ParseMoney accepts (1 000 000.00): more
// than any till holds, and far from int64 overflow.
const MaxMoney Money = 100_000_000

// ParseMoney reads an amount typed by a person into minor units: whole
// units, optionally followed by a point (or a comma, as many tills write
// it) and one or two digits — "12", "12.5", "12.50", "12,50". Anything
// else is refused with EInvalid rather than guessed at: signs ("-0.50",
// "+3"), exponents ("1e3"), a third decimal ("12.505"), thousands
// separators ("1,000" reads as three decimals), a bare point (".5", "5."),
// letters, currency symbols and inner spaces. Space around the amount is
// ignored; an empty amount is refused.
func ParseMoney(s string) (Money, error) {
	t := strings.TrimSpace(s)
	whole, frac, hasFrac := strings.Cut(t, ".")
	if !hasFrac {
		whole, frac, hasFrac = strings.Cut(t, ",")
	}
	bad := func() (Money, error) {
		if t == "" {
			return 0, Errorf(EInvalid, "Type an amount, like 12 or 12.50.")
		}
		return 0, Errorf(EInvalid, "%q is not an amount: type it like 12 or 12.50.", CleanLine(t, 20))
	}
	if !allDigits(whole) || (hasFrac && !allDigits(frac)) || len(frac) > 2 {
		return bad()
	}
	// Ten digits of whole units already exceed MaxMoney; stopping there
	// keeps ParseInt far from overflow.
	if len(whole) > 10 {
		return 0, Errorf(EInvalid, "%s is more than %s.", CleanLine(t, 20), MaxMoney.String())
	}
	units, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return bad()
	}
	cents := int64(0)
	if frac != "" {
		cents, _ = strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			cents *= 10
		}
	}
	minor := Money(units*100 + cents)
	if minor > MaxMoney {
		return 0, Errorf(EInvalid, "%s is more than %s.", CleanLine(t, 20), MaxMoney.String())
	}
	return minor, nil
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String writes an amount as "12.50" (and a refund's negative amount as
// "-2.50"): the one way money is shown on a screen, a receipt or in JSON.
func (m Money) String() string {
	neg := m < 0
	u := uint64(m)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u/100, 10) + "." + string(rune('0'+u%100/10)) + string(rune('0'+u%10))
	if neg {
		return "-" + s
	}
	return s
}
