package tui

import (
	"strconv"
	"strings"

	"boxoffice/booking"
)

// parseSeatRange reads "G7", "g7", "G7-9" or "G7-G9" into seat labels.
func parseSeatRange(text string) ([]string, error) {
	t := strings.ToUpper(strings.ReplaceAll(text, " ", ""))
	bad := booking.Errorf(booking.EInvalid, "Type a seat like G7, or a range like G7-9.")
	from, to, isRange := strings.Cut(t, "-")
	row, n1, ok := splitLabel(from)
	if !ok {
		return nil, bad
	}
	if !isRange {
		return []string{row + strconv.Itoa(n1)}, nil
	}
	row2, n2, ok := splitLabel(to)
	if !ok {
		if n, err := strconv.Atoi(to); err == nil {
			row2, n2, ok = row, n, true
		}
	}
	if !ok || row2 != row {
		return nil, bad
	}
	if n2 < n1 {
		n1, n2 = n2, n1
	}
	if n2-n1 >= 20 {
		return nil, booking.Errorf(booking.EInvalid, "At most 20 seats at once.")
	}
	var out []string
	for n := n1; n <= n2; n++ {
		out = append(out, row+strconv.Itoa(n))
	}
	return out, nil
}

// splitLabel splits "G7" into "G" and 7.
func splitLabel(s string) (string, int, bool) {
	i := strings.IndexFunc(s, isDigit)
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return s[:i], n, true
}
