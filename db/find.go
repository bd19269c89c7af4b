package db

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"unicode"

	"boxoffice/booking"
)

// Searching for a booking. What a clerk types is one of three things: the
// booking number read off a confirmation, the customer's phone number (or
// its last digits), or the start of the customer's first or last name.
// Each has its own index, so a search costs the same on the first day and
// after a year of sales (see migrations/0003_scale.sql).
//
// modernc's SQLite has FTS5 (trigram too), and it was tried for names: a
// prefix query there merges the document lists of every matching term,
// so its cost grows with the bookings that match ("ann*" took 0.5 ms on
// 179 000 names), and each commit writes an index segment (a one-row
// transaction took three times as long as without it). The word table below reads each matching word's newest
// bookings backwards through its primary key instead, whatever the
// history, for two or three rows per sale.

// Bounds on a name search: how many distinct stored words one typed word
// may stand for, and how many bookings per word a search with more than
// one word considers before it filters by the other words.
const (
	maxPrefixWords   = 32
	multiWordPerWord = 100
	// phoneDigits is how many trailing digits of a typed number are
	// matched: enough to tell customers apart, few enough that
	// "+44 20 7946 0018" finds a booking taken as "020 7946 0018".
	phoneDigits = 9
)

// FindBookings searches by booking number, phone or customer name, newest
// first. An exact booking number is the only result: a number must never
// bring up someone else's booking whose phone holds the same digits.
func (s *Store) FindBookings(ctx context.Context, actor booking.Actor, q booking.BookingQuery) ([]booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	text := booking.CleanLine(q.Text, 64)
	if text == "" {
		return nil, booking.Errorf(booking.EInvalid, "Type a booking number, phone or name.")
	}
	limit := q.Limit
	if limit <= 0 || limit > 50 {
		limit = 20
	}
	if number := normalizeNumber(text); isBookingNumber(number) {
		var id int64
		err := s.readRow(ctx, `SELECT id FROM bookings WHERE number = ?`, number).Scan(&id)
		if err == nil {
			return s.loadBookings(ctx, []int64{id})
		}
		if err != sql.ErrNoRows {
			return nil, s.translate("find bookings", err)
		}
		// Not a booking: eight letters and digits may still be a phone
		// number or a name.
	}
	var ids []int64
	var err error
	if digits := phoneSearchDigits(text); digits != "" {
		ids, err = s.findByPhone(ctx, digits, limit)
	} else {
		ids, err = s.findByName(ctx, nameWords(text), limit)
	}
	if err != nil {
		return nil, s.translate("find bookings", err)
	}
	return s.loadBookings(ctx, ids)
}

// isBookingNumber reports whether n (normalized) has the shape of a
// booking number: BO- and eight characters of booking.NumberAlphabet.
func isBookingNumber(n string) bool {
	rest, ok := strings.CutPrefix(n, "BO-")
	if !ok || len(rest) != 8 {
		return false
	}
	for _, r := range rest {
		if !strings.ContainsRune(booking.NumberAlphabet, r) {
			return false
		}
	}
	return true
}

// phoneSearchDigits returns the digits to search for when text reads as a
// phone number (digits and the usual separators, at least three digits),
// else "".
func phoneSearchDigits(text string) string {
	var digits []byte
	for _, r := range text {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, byte(r))
		case strings.ContainsRune(" +-()./", r):
		default:
			return ""
		}
	}
	if len(digits) < 3 {
		return ""
	}
	if len(digits) > phoneDigits {
		digits = digits[len(digits)-phoneDigits:]
	}
	return string(digits)
}

// reverseDigits is a phone number's digits, last first: the phone_rev
// column, where "ends with" is a prefix.
func reverseDigits(phone string) string {
	var out []byte
	for i := len(phone) - 1; i >= 0; i-- {
		if c := phone[i]; c >= '0' && c <= '9' {
			out = append(out, c)
		}
	}
	return string(out)
}

// prefixEnd is the smallest string greater than every string starting
// with p, byte by byte as SQLite's BINARY collation compares (p is
// non-empty valid UTF-8, so its last byte is below 0xFF).
func prefixEnd(p string) string {
	return p[:len(p)-1] + string([]byte{p[len(p)-1] + 1})
}

func (s *Store) findByPhone(ctx context.Context, digits string, limit int) ([]int64, error) {
	rev := reverseDigits(digits)
	return s.readIDs(ctx, `SELECT id FROM bookings WHERE phone_rev >= ? AND phone_rev < ? AND phone_rev <> ''
		ORDER BY id DESC LIMIT ?`, rev, prefixEnd(rev), limit)
}

// findByName finds the newest bookings whose customer name has, for every
// typed word, a word starting with it. The longest typed word drives the
// search through booking_words: each stored word it is a prefix of gives
// its newest bookings (an index range read backwards), so the cost is
// set by the words matched and the limit, not by how many bookings exist.
func (s *Store) findByName(ctx context.Context, words []string, limit int) ([]int64, error) {
	if len(words) == 0 {
		return nil, nil
	}
	driver := words[0]
	for _, w := range words[1:] {
		if len(w) >= len(driver) {
			driver = w
		}
	}
	stored, err := s.wordsWithPrefix(ctx, driver)
	if err != nil {
		return nil, err
	}
	perWord := limit
	if len(words) > 1 {
		perWord = multiWordPerWord
	}
	var ids []int64
	for _, w := range stored {
		got, err := s.readIDs(ctx, `SELECT booking_id FROM booking_words WHERE word = ? ORDER BY booking_id DESC LIMIT ?`, w, perWord)
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
	}
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(b, a) })
	ids = slices.Compact(ids)
	if len(words) > 1 {
		if ids, err = s.filterByName(ctx, ids, words); err != nil {
			return nil, err
		}
	}
	return ids[:min(len(ids), limit)], nil
}

// wordsWithPrefix lists the distinct stored words starting with p, by
// hopping from one word to the next through the primary key instead of
// reading every booking of every word.
func (s *Store) wordsWithPrefix(ctx context.Context, p string) ([]string, error) {
	rows, err := s.readRows(ctx, `WITH RECURSIVE w(word) AS (
			SELECT (SELECT min(word) FROM booking_words WHERE word >= ?1 AND word < ?2)
			UNION ALL
			SELECT (SELECT min(word) FROM booking_words WHERE word > w.word AND word < ?2) FROM w WHERE w.word IS NOT NULL
			LIMIT ?3)
		SELECT word FROM w WHERE word IS NOT NULL`, p, prefixEnd(p), maxPrefixWords)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// filterByName keeps the bookings (in order) whose customer has a word
// starting with each typed word.
func (s *Store) filterByName(ctx context.Context, ids []int64, words []string) ([]int64, error) {
	rows, err := s.readRows(ctx, `SELECT id, customer FROM bookings WHERE id IN (SELECT value FROM json_each(?))`, idList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := make(map[int64]string, len(ids))
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		names[id] = name
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := ids[:0]
	for _, id := range ids {
		if nameMatches(nameWords(names[id]), words) {
			out = append(out, id)
		}
	}
	return out, nil
}

func nameMatches(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// nameWords splits a name into folded words: lower case, accents off
// ("Müller" is found by "muller" and "mül"), apostrophes dropped
// ("O'Brien" is "obrien"), anything else that is not a letter or digit a
// separator. At most eight words of at most 32 bytes.
func nameWords(name string) []string {
	var words []string
	var b strings.Builder
	flush := func() {
		w := b.String()
		if len(w) > 32 {
			w = strings.ToValidUTF8(w[:32], "")
		}
		if w != "" && len(words) < 8 && !slices.Contains(words, w) {
			words = append(words, w)
		}
		b.Reset()
	}
	for _, r := range name {
		switch {
		case r == '\'' || r == '’':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteString(fold(unicode.ToLower(r)))
		default:
			flush()
		}
	}
	flush()
	return words
}

// foldTable maps accented Latin letters to their plain forms.
var foldTable = func() map[rune]string {
	m := map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i"}
	for plain, accented := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ď", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥħ",
		"i": "ìíîïĩīĭįi", "j": "ĵ", "k": "ķ", "l": "ĺļľŀ", "n": "ñńņňŉ", "o": "òóôõöōŏő",
		"r": "ŕŗř", "s": "śŝşšș", "t": "ţťŧț", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
	} {
		for _, r := range accented {
			m[r] = plain
		}
	}
	return m
}()

func fold(r rune) string {
	if f, ok := foldTable[r]; ok {
		return f
	}
	return string(r)
}

// indexCustomer records a new booking's name words for findByName.
func indexCustomer(w *wtx, bookingID int64, customer string) error {
	words := nameWords(customer)
	if len(words) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(words))
	for _, word := range words {
		args = append(args, word, bookingID)
	}
	_, err := w.exec(`INSERT INTO booking_words (word, booking_id) VALUES `+placeholders("(?, ?)", len(words)), args...)
	return err
}

// backfillSearch fills phone_rev and booking_words for the bookings and
// waiting-list entries made before migration 3.
func backfillSearch(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		id              int64
		customer, phone string
	}
	read := func(query string) ([]row, error) {
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.customer, &r.phone); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	bookings, err := read(`SELECT id, customer, phone FROM bookings`)
	if err != nil {
		return err
	}
	for _, b := range bookings {
		if rev := reverseDigits(b.phone); rev != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE bookings SET phone_rev = ? WHERE id = ?`, rev, b.id); err != nil {
				return err
			}
		}
		for _, word := range nameWords(b.customer) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO booking_words (word, booking_id) VALUES (?, ?)`, word, b.id); err != nil {
				return err
			}
		}
	}
	entries, err := read(`SELECT id, name, phone FROM waitlist`)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := tx.ExecContext(ctx, `UPDATE waitlist SET phone_rev = ? WHERE id = ?`, reverseDigits(e.phone), e.id); err != nil {
			return err
		}
	}
	return nil
}
