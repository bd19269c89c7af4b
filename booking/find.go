package booking

import (
	"slices"
	"strings"
	"unicode"
)

// Finding a booking. What a clerk types is one of three things: the
// booking number read off a confirmation, the customer's phone number (or
// its last digits), or the start of the customer's first or last names,
// in any order. The rules of what matches live here; each store keeps an
// index for each (a phone's digits reversed, so "ends with" is a prefix;
// a name's folded words).

// PhoneSearchDigits is how many trailing digits of a typed number are
// matched: enough to tell customers apart, few enough that
// "+44 20 7946 0018" finds a booking taken as "020 7946 0018".
const PhoneSearchDigits = 9

// MaxPrefixWords bounds how many distinct stored words one typed word may
// stand for.
const MaxPrefixWords = 32

// PhoneSearch returns the digits to search for when text reads as a phone
// number (digits and the usual separators, at least three digits), the
// last PhoneSearchDigits of them, else "".
func PhoneSearch(text string) string {
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
	if len(digits) > PhoneSearchDigits {
		digits = digits[len(digits)-PhoneSearchDigits:]
	}
	return string(digits)
}

// ReverseDigits is a phone number's digits, last first: the stored form
// in which "ends with" is a prefix.
func ReverseDigits(phone string) string {
	var out []byte
	for i := len(phone) - 1; i >= 0; i-- {
		if c := phone[i]; c >= '0' && c <= '9' {
			out = append(out, c)
		}
	}
	return string(out)
}

// PrefixEnd is the smallest string greater than every string starting
// with p, byte by byte (SQLite's BINARY collation, PostgreSQL's "C"); p is
// non-empty valid UTF-8, so its last byte is below 0xFF.
func PrefixEnd(p string) string {
	return p[:len(p)-1] + string([]byte{p[len(p)-1] + 1})
}

// NameWords splits a name into folded words: lower case, accents off
// ("Müller" is found by "muller" and "mül"), apostrophes dropped
// ("O'Brien" is "obrien"), anything else that is not a letter or digit a
// separator. At most eight words of at most 32 bytes.
func NameWords(name string) []string {
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

// NameMatches reports whether a name with the words have (NameWords) has,
// for every typed word, a word starting with it.
func NameMatches(have, typed []string) bool {
	for _, w := range typed {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
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
