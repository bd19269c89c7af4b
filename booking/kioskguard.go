package booking

import (
	"fmt"
	"strings"
	"time"
)

// The public kiosk's guards (docs/kiosk.md): how many guesses at a
// booking's phone digits are compared, how much of a show the kiosks may
// hold at once, how an address that keeps letting seats go is slowed,
// and the one form of a phone number every per-phone rule compares.
// These are the rules; each store keeps only the SQL that reads and
// writes the counts.

// GuessLimit is the schedule of one kind of guess counter: Free tries,
// the last of which begins a pause of FirstPause; each pause after it
// is twice the one before, up to MaxPause. A key left alone for Forget
// after its last try (or the end of its pause) starts again from
// nothing.
type GuessLimit struct {
	Free                 int
	FirstPause, MaxPause time.Duration
	Forget               time.Duration
}

// The kiosk's "Collect my tickets" counts its tries twice, before the
// digits are compared: per booking number typed, whether or not a
// booking has it (so a made-up number is paused as a real one is, and a
// pause says nothing about which numbers exist), and per address (an
// SSH session's network, the kiosk device in the building).
//
// CollectByNumber guards one customer's booking: after the first day
// (ten pauses, about 17 hours) a guesser gets 5 tries a day, and the
// count is kept for a week of quiet, longer than most bookings live.
// CollectByAddr guards against one address trying many numbers; it is
// forgotten after an hour of quiet, so a busy kiosk in the foyer is not
// slowed for good by its customers' typing mistakes.
var (
	CollectByNumber = GuessLimit{Free: 5, FirstPause: time.Minute, MaxPause: 24 * time.Hour, Forget: 7 * 24 * time.Hour}
	CollectByAddr   = GuessLimit{Free: 5, FirstPause: time.Minute, MaxPause: time.Hour, Forget: time.Hour}
)

// Guesses is where one key of a guess counter stands: the tries counted
// since its last pause ended, the pauses it has begun, when the pause in
// force ends (zero: none) and when it was last tried.
type Guesses struct {
	Tries, Pauses int
	Until, Last   time.Time
}

// GuessesMS is Guesses as a store keeps it, in unix milliseconds (0:
// never).
func GuessesMS(tries, pauses int, until, last int64) Guesses {
	g := Guesses{Tries: tries, Pauses: pauses}
	if until != 0 {
		g.Until = time.UnixMilli(until)
	}
	if last != 0 {
		g.Last = time.UnixMilli(last)
	}
	return g
}

// MS is g's times in unix milliseconds, as GuessesMS reads them.
func (g Guesses) MS() (until, last int64) {
	if !g.Until.IsZero() {
		until = g.Until.UnixMilli()
	}
	if !g.Last.IsZero() {
		last = g.Last.UnixMilli()
	}
	return until, last
}

// Pause is the nth pause (from 1): FirstPause doubled n-1 times, at
// most MaxPause.
func (l GuessLimit) Pause(n int) time.Duration {
	d := l.FirstPause
	for i := 1; i < n && d < l.MaxPause; i++ {
		d *= 2
	}
	return min(d, l.MaxPause)
}

// Try counts one try at now, before what it guesses is compared. A key
// in a pause is refused: wait is how long the pause has yet, and only
// Last moves, so a key hammered while paused is not forgotten. Otherwise
// the try is counted, and the try that reaches Free begins the next pause
// at once, so that tries arriving while it is compared are refused. A
// pause ending further ahead than MaxPause was begun on a clock since put
// back, and is over (as the sign-in lockout's).
func (l GuessLimit) Try(g Guesses, now time.Time) (next Guesses, wait time.Duration) {
	if g.Until.After(now) && !g.Until.After(now.Add(l.MaxPause)) {
		g.Last = now
		return g, g.Until.Sub(now)
	}
	if quiet := l.quietSince(g); !quiet.IsZero() && now.Sub(quiet) >= l.Forget {
		g = Guesses{}
	}
	if !g.Until.IsZero() {
		g.Tries, g.Until = 0, time.Time{} // the pause is over: a fresh allowance, its length remembered
	}
	g.Tries++
	g.Last = now
	if g.Tries >= l.Free {
		g.Pauses++
		g.Until = now.Add(l.Pause(g.Pauses))
	}
	return g, 0
}

// quietSince is when g last did anything: its last try or the end of its
// pause, whichever is later.
func (l GuessLimit) quietSince(g Guesses) time.Time {
	if g.Until.After(g.Last) {
		return g.Until
	}
	return g.Last
}

// Keep is when a store may forget g: Forget after it was last busy.
func (l GuessLimit) Keep(g Guesses) time.Time { return l.quietSince(g).Add(l.Forget) }

// CollectPaused is the kiosk's answer to a collect refused, before its
// digits were compared, because the number typed (byNumber) or the
// address is in a pause. The words never say whether the number exists.
func CollectPaused(byNumber bool, wait time.Duration) error {
	where := "at this kiosk"
	if byNumber {
		where = "for that booking number"
	}
	return Errorf(EForbidden, "Too many wrong tries %s: try again in %s, or ask at the counter.", where, WaitText(wait))
}

// CollectKeys are the guess counters' keys of a collect of number (as
// the store reads it: booking.CleanLine'd and normalised) from addr (a
// KioskAddr).
func CollectKeys(number, addr string) (byNumber, byAddr string) {
	return "number " + number, "addr " + addr
}

// CollectCount is one collect try counted: the standings of its number
// and its address to store, and Wait > 0 when either was paused (ByNumber:
// the number's was the longer), in which case the digits are not
// compared.
type CollectCount struct {
	Number, Addr Guesses
	Wait         time.Duration
	ByNumber     bool
}

// Refused is the customer's answer to a try refused unseen, or nil.
func (c CollectCount) Refused() error {
	if c.Wait <= 0 {
		return nil
	}
	return CollectPaused(c.ByNumber, c.Wait)
}

// CollectTry counts one collect try at now on the standings of its
// number and its address, before the digits are compared. When either is
// paused the try is refused and the key that was not paused is not
// charged a try.
func CollectTry(number, addr Guesses, now time.Time) CollectCount {
	nn, wn := CollectByNumber.Try(number, now)
	na, wa := CollectByAddr.Try(addr, now)
	if wn == 0 && wa == 0 {
		return CollectCount{Number: nn, Addr: na}
	}
	if wn == 0 {
		nn, nn.Last = number, now
	}
	if wa == 0 {
		na, na.Last = addr, now
	}
	return CollectCount{Number: nn, Addr: na, Wait: max(wn, wa), ByNumber: wn >= wa}
}

// CollectRight is what to store after a collect whose digits were right,
// for an address that stood at addrBefore before the try: the number's
// count cleared (its customer proved it) and the address's try taken
// back, since a right answer uses none of its allowance (a kiosk in the
// foyer serves many customers).
func CollectRight(addrBefore Guesses) (number, addr Guesses) { return Guesses{}, addrBefore }

// Failed is the audit row of this try of number from addr, failed:
// refused unseen, or wrong digits.
func (c CollectCount) Failed(number, addr string) AuditEntry {
	d := fmt.Sprintf("%s from %s: ", CleanLine(number, 20), CleanLine(addr, 64))
	if c.Wait > 0 {
		d += "refused unseen, paused " + WaitText(c.Wait) + " more"
	} else {
		d += fmt.Sprintf("wrong digits, try %d of %d on the number, %d of %d from here",
			c.Number.Tries, CollectByNumber.Free, c.Addr.Tries, CollectByAddr.Free)
	}
	return AuditEntry{Action: AuditCollectFailed, Detail: d}
}

// WaitText says a wait as a customer reads it, rounded up: seconds under
// a minute, minutes under two hours, then hours.
func WaitText(d time.Duration) string {
	switch {
	case d <= time.Second:
		return "1 second"
	case d < time.Minute:
		return fmt.Sprintf("%d seconds", int((d+time.Second-1)/time.Second))
	case d <= time.Minute:
		return "1 minute"
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
	}
	return fmt.Sprintf("%d hours", int((d+time.Hour-1)/time.Hour))
}

// KioskShowShare is how much of one show the kiosks' live holds and the
// unpaid reservations made at kiosks may take at once: one seat in
// KioskShowShare, a third. The rest is only ever sold at a counter (or
// held at a kiosk once the kiosks' share has room again), so bots
// holding through kiosks can never make a show look full.
const KioskShowShare = 3

// KioskShowCap is how many seats of a hall of seats the kiosks may hold
// or keep reserved unpaid at once.
func KioskShowCap(seats int) int { return seats / KioskShowShare }

// KioskShareCheck refuses n more kiosk seats of a show in a hall of
// seats when the kiosks hold (or keep reserved unpaid) taken of it
// already and n would pass KioskShowCap; the message is the customer's,
// and says the limit.
func KioskShareCheck(seats, taken, n int) error {
	limit := KioskShowCap(seats)
	left := max(limit-taken, 0)
	if n <= left {
		return nil
	}
	share := "a third"
	if KioskShowShare != 3 {
		share = fmt.Sprintf("1 in %d", KioskShowShare)
	}
	if left == 0 {
		return Errorf(EConflict, "The kiosks may hold at most %s of this show's seats at once (%d), and they are all held or reserved: buy at the counter, or try again in a few minutes.", share, limit)
	}
	return Errorf(EConflict, "The kiosks may hold at most %s of this show's seats at once (%d): only %d more can be held here now. Choose fewer, or buy at the counter.", share, limit, left)
}

// A kiosk address that holds seats and lets them go unbooked, again and
// again, is slowed rather than rewarded: after KioskFreeLetGo such holds
// in KioskLetGoWindow, its next hold waits KioskFirstWait after the last
// one ended, doubling with each one more, up to KioskMaxWait. A hold
// moved (the customer shifted the block) or reserved is not let go; one
// released by starting again, the idle reset, a disconnect or its own
// expiry is.
const (
	KioskFreeLetGo   = 3
	KioskLetGoWindow = time.Hour
	KioskFirstWait   = 30 * time.Second
	KioskMaxWait     = 15 * time.Minute
)

// KioskHoldWait is how long yet an address that let letGo kiosk holds go
// unbooked in the last KioskLetGoWindow, the latest of them ending at
// lastEnd, must wait at now before it may hold again.
func KioskHoldWait(letGo int, lastEnd, now time.Time) time.Duration {
	if letGo < KioskFreeLetGo {
		return 0
	}
	wait := KioskFirstWait
	for i := KioskFreeLetGo; i < letGo && wait < KioskMaxWait; i++ {
		wait *= 2
	}
	wait = min(wait, KioskMaxWait)
	if lastEnd.After(now) {
		lastEnd = now // a hold ending ahead of the clock ends now, never later
	}
	return max(lastEnd.Add(wait).Sub(now), 0)
}

// KioskSlowed is the customer's answer to a hold refused by
// KioskHoldWait.
func KioskSlowed(wait time.Duration) error {
	return Errorf(EConflict, "Seats held at this kiosk were let go without booking several times: you can choose seats again in %s.", WaitText(wait))
}

// Kiosk addresses: what the per-address rules (the reservations an hour,
// collect's tries, the slowing of let-go holds) count by. An SSH kiosk
// session's is its network address; a kiosk in the building is its
// device (DeviceAddr); a kiosk request with neither counts by its
// session (KioskAddr).
const (
	deviceAddrPrefix  = "device:"
	sessionAddrPrefix = "session:"
)

// DeviceAddr is the address of a kiosk in the building: its terminal.
func DeviceAddr(terminal string) string { return deviceAddrPrefix + CleanLine(terminal, 56) }

// KioskAddr is the address a kiosk request from addr, by the session
// owner, counts by: addr cleaned, or the session when addr is empty.
func KioskAddr(addr, owner string) string {
	if addr = CleanLine(addr, 64); addr != "" {
		return addr
	}
	return sessionAddrPrefix + CleanLine(owner, 56)
}

// KioskDeviceReservationsPerHour is how many reservations a kiosk in the
// building may make in an hour: one every two minutes, about as fast as
// one customer after another can go through its screens. A network
// address has KioskReservationsPerHour.
const KioskDeviceReservationsPerHour = 30

// ReservationsPerHour is how many reservations kiosks at addr (a
// KioskAddr) may make in an hour.
func ReservationsPerHour(addr string) int {
	if strings.HasPrefix(addr, deviceAddrPrefix) {
		return KioskDeviceReservationsPerHour
	}
	return KioskReservationsPerHour
}

// KioskChordWhy is the audit rows' why of a name and PIN typed after the
// staff chord of the kiosk at terminal (SignInRequest.Kiosk).
func KioskChordWhy(terminal string) string {
	return "at a kiosk's staff chord (" + CleanLine(terminal, 60) + ")"
}

// DefaultPhoneCountry is the country code a phone number typed with a
// trunk 0 is taken to be in, unless the store is set up with another
// (BOXOFFICE_PHONE_COUNTRY): the UK's, where the demo cinema is.
const DefaultPhoneCountry = "44"

// ValidPhoneCountry refuses a country code that is not 1 to 3 digits
// without a leading 0; "" stands for DefaultPhoneCountry.
func ValidPhoneCountry(cc string) error {
	if cc == "" {
		return nil
	}
	if len(cc) > 3 || cc[0] == '0' || strings.ContainsFunc(cc, func(r rune) bool { return r < '0' || r > '9' }) {
		return Errorf(EInvalid, "The default phone country code %q is not 1 to 3 digits like 44.", CleanLine(cc, 8))
	}
	return nil
}

// NormalPhone is the one form of a phone number that every per-phone
// rule compares, its international digits without the +: for country 44,
// "+44 7700 900123", "0044 7700900123", "+44 (0)7700 900123" and
// "07700 900123" are all "447700900123". The rule: a "(0)" is dropped;
// then the digits (PhoneDigits) of a number typed with a leading + are
// international already, "00" (the international prefix) is dropped, and
// a single leading 0 (the trunk prefix) becomes country
// (DefaultPhoneCountry when ""). A number with none of them is taken as
// typed. The result must have MinPhoneDigits to MaxPhoneDigits digits.
func NormalPhone(phone, country string) (string, error) {
	if country == "" {
		country = DefaultPhoneCountry
	}
	phone = strings.TrimSpace(strings.ReplaceAll(phone, "(0)", ""))
	digits, err := PhoneDigits(phone)
	if err != nil {
		return "", err
	}
	switch {
	case strings.HasPrefix(phone, "+"):
	case strings.HasPrefix(digits, "00"):
		digits = digits[2:]
	case strings.HasPrefix(digits, "0"):
		digits = country + digits[1:]
	}
	if len(digits) < MinPhoneDigits || len(digits) > MaxPhoneDigits {
		return "", Errorf(EInvalid, "Type a phone number of %d to %d digits.", MinPhoneDigits, MaxPhoneDigits)
	}
	return digits, nil
}
