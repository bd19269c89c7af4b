package booking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
)

// Ticket codes are what the door scans: the ticket id and the id of the key
// that signed it, followed by HMAC-SHA256 over both truncated to 128 bits,
// written in unpadded RFC 4648 base32. Upper-case letters and digits only,
// so a QR code can use its dense alphanumeric mode.
var codeEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// macSize is the truncated HMAC length: 128 bits.
const macSize = 16

// TicketKey is a signing key with its id. The id travels in every code so
// that a rotated key can still verify old tickets while it is kept.
type TicketKey struct {
	ID     uint32
	Secret []byte
}

// SignTicket returns the code for ticket id under key.
func SignTicket(key TicketKey, ticketID int64) string {
	payload := binary.AppendUvarint(nil, uint64(ticketID))
	payload = binary.AppendUvarint(payload, uint64(key.ID))
	return codeEncoding.EncodeToString(append(payload, mac(key.Secret, payload)...))
}

// VerifyTicket checks a scanned code against the keys it may be signed with
// and returns the ticket id. A code that does not verify is "not found": a
// forged code must look like one that was never issued.
func VerifyTicket(keys []TicketKey, code string) (int64, error) {
	notFound := Errorf(ENotFound, "Unknown ticket code.")
	code = strings.ToUpper(strings.TrimSpace(code))
	raw, err := codeEncoding.DecodeString(code)
	// Only the canonical spelling is a code: unused trailing bits must be
	// zero, so one ticket has exactly one code.
	if err != nil || len(raw) <= macSize || codeEncoding.EncodeToString(raw) != code {
		return 0, notFound
	}
	payload, sum := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	ticketID, n := binary.Uvarint(payload)
	if n <= 0 {
		return 0, notFound
	}
	keyID, m := binary.Uvarint(payload[n:])
	if m <= 0 || n+m != len(payload) {
		return 0, notFound
	}
	for _, k := range keys {
		if uint64(k.ID) == keyID && hmac.Equal(sum, mac(k.Secret, payload)) {
			return int64(ticketID), nil
		}
	}
	return 0, notFound
}

func mac(secret, payload []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write(payload)
	return h.Sum(nil)[:macSize]
}
