package db

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"time"
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
// booking number: BO- and eight characters of numberAlphabet.
func isBookingNumber(n string) bool {
	rest, ok := strings.CutPrefix(n, "BO-")
	if !ok || len(rest) != 8 {
		return false
	}
	for _, r := range rest {
		if !strings.ContainsRune(numberAlphabet, r) {
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

// idList is ids as a JSON array, for json_each: one statement serves any
// number of ids.
func idList(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// loadBooking reads a whole booking: show, tickets and payments. The
// querier is not used: every booking is read through loadBookings, in
// one read transaction on the read pool's prepared statements.
func (s *Store) loadBooking(ctx context.Context, _ querier, id int64) (*booking.Booking, error) {
	out, err := s.loadBookings(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, booking.Errorf(booking.ENotFound, "Not found.")
	}
	return &out[0], nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// loadBookings reads whole bookings in the order of ids, in four queries
// whatever their number (bookings, their shows, tickets, payments), all
// in one read transaction so a booking cancelled meanwhile is never seen
// half cancelled.
func (s *Store) loadBookings(ctx context.Context, ids []int64) ([]booking.Booking, error) {
	if len(ids) == 0 {
		return []booking.Booking{}, nil
	}
	// Prepare before taking a connection for the transaction: preparing
	// on the pool while every connection sits in such a transaction
	// would wait for ever.
	for _, q := range loadQueries {
		if _, err := s.readStmt(ctx, q); err != nil {
			return nil, s.translate("load booking", err)
		}
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, s.translate("load booking", err)
	}
	defer tx.Rollback()
	list := idList(ids)
	byID, showIDs, err := s.readBookingRows(ctx, tx, list)
	if err != nil {
		return nil, s.translate("load booking", err)
	}
	shows, err := s.readShowsByID(ctx, tx, showIDs)
	if err != nil {
		return nil, s.translate("load booking", err)
	}
	for _, b := range byID {
		b.Show = shows[b.Show.ID]
	}
	for _, sh := range shows {
		// Halls are cached; load any not seen yet before the ticket rows
		// need their seats.
		if _, err := s.hall(ctx, sh.HallID); err != nil {
			return nil, err
		}
	}
	if err := s.readTickets(ctx, tx, list, byID); err != nil {
		return nil, err
	}
	if err := s.readPayments(ctx, tx, list, byID); err != nil {
		return nil, s.translate("load booking", err)
	}
	out := make([]booking.Booking, 0, len(ids))
	for _, id := range ids {
		if b, ok := byID[id]; ok {
			s.signCodes(b)
			out = append(out, *b)
		}
	}
	return out, nil
}

// The four reads of loadBookings.
const (
	qBookingRows = `SELECT id, number, show_id, status, customer, phone, total, sold_by, terminal, created_at,
		cancelled_by, approved_by, reason, cancelled_at FROM bookings WHERE id IN (SELECT value FROM json_each(?))`
	qShowsByID = `SELECT ` + showColumns + `
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id IN (SELECT value FROM json_each(?))`
	qTickets = `SELECT t.id, t.booking_id, t.seat_id, t.type_code, t.price, t.status, t.admitted_at, t.admitted_by
		FROM json_each(?) j CROSS JOIN tickets t ON t.id BETWEEN j.value * ? AND j.value * ? + ? ORDER BY t.id`
	qPayments = `SELECT booking_id, id, kind, method, amount, tendered, change_due, at, staff
		FROM payments WHERE booking_id IN (SELECT value FROM json_each(?)) ORDER BY id`
)

var loadQueries = []string{qBookingRows, qShowsByID, qTickets, qPayments}

// txRows runs a statement already prepared on the read pool inside tx.
func (s *Store) txRows(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
}

func (s *Store) readBookingRows(ctx context.Context, tx *sql.Tx, list string) (map[int64]*booking.Booking, []int64, error) {
	rows, err := s.txRows(ctx, tx, qBookingRows, list)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	byID := map[int64]*booking.Booking{}
	var showIDs []int64
	for rows.Next() {
		b := &booking.Booking{}
		var created int64
		var cancelledAt sql.NullInt64
		if err := rows.Scan(&b.ID, &b.Number, &b.Show.ID, &b.Status, &b.Customer, &b.Phone, &b.Total, &b.SoldBy, &b.Terminal, &created,
			&b.CancelledBy, &b.ApprovedBy, &b.Reason, &cancelledAt); err != nil {
			return nil, nil, err
		}
		b.CreatedAt = time.UnixMilli(created)
		byID[b.ID] = b
		if !slices.Contains(showIDs, b.Show.ID) {
			showIDs = append(showIDs, b.Show.ID)
		}
	}
	return byID, showIDs, rows.Err()
}

func (s *Store) readShowsByID(ctx context.Context, tx *sql.Tx, ids []int64) (map[int64]booking.Show, error) {
	rows, err := s.txRows(ctx, tx, qShowsByID, s.opts.Clock().UnixMilli(), idList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]booking.Show, len(ids))
	for rows.Next() {
		sh, err := scanShow(rows)
		if err != nil {
			return nil, err
		}
		out[sh.ID] = sh
	}
	return out, rows.Err()
}

// readTickets reads the tickets of the bookings in list. A booking's
// tickets are a range of ticket ids (see ticketsPerBooking), so each
// booking costs one primary-key range.
func (s *Store) readTickets(ctx context.Context, tx *sql.Tx, list string, byID map[int64]*booking.Booking) error {
	rows, err := s.txRows(ctx, tx, qTickets, list, ticketsPerBooking, ticketsPerBooking, ticketsPerBooking-1)
	if err != nil {
		return s.translate("load booking", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t booking.Ticket
		var bookingID, seatID int64
		var admitted sql.NullInt64
		if err := rows.Scan(&t.ID, &bookingID, &seatID, &t.Type, &t.Price, &t.Status, &admitted, &t.AdmittedBy); err != nil {
			return s.translate("load booking", err)
		}
		b := byID[bookingID]
		if b == nil {
			continue
		}
		t.Seat, _ = s.seatByID(b.Show.HallID, seatID)
		if admitted.Valid {
			at := time.UnixMilli(admitted.Int64)
			t.AdmittedAt = &at
		}
		b.Tickets = append(b.Tickets, t)
	}
	return s.translate("load booking", rows.Err())
}

func (s *Store) readPayments(ctx context.Context, tx *sql.Tx, list string, byID map[int64]*booking.Booking) error {
	rows, err := s.txRows(ctx, tx, qPayments, list)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p booking.Payment
		var bookingID, at int64
		var method string
		if err := rows.Scan(&bookingID, &p.ID, &p.Kind, &method, &p.Amount, &p.Tendered, &p.Change, &at, &p.Staff); err != nil {
			return err
		}
		p.Method = booking.PayMethod(method)
		p.At = time.UnixMilli(at)
		if b := byID[bookingID]; b != nil {
			b.Payments = append(b.Payments, p)
		}
	}
	return rows.Err()
}
