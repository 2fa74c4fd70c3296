package validate

// LuhnValid reports whether number, a string of decimal digits, ends in its
// Luhn check digit (ISO/IEC 7812-1 annex B), as a payment card number does.
// It is false for an empty string or one holding anything but the digits 0
// to 9; it does not check the length, which the caller's rule decides.
func LuhnValid(number string) bool {
	if number == "" {
		return false
	}
	last := len(number) - 1
	d, ok := LuhnCheckDigit(number[:last])
	return ok && number[last] == d
}

// LuhnCheckDigit returns the digit ('0' to '9') that, appended to payload,
// makes a number LuhnValid accepts: from the right, every other digit of
// payload, starting with its last, counts double, less 9 when it exceeds 9,
// and the check digit brings the sum to a multiple of 10. ok is false when
// payload holds anything but the digits 0 to 9; an empty payload gives '0'.
func LuhnCheckDigit(payload string) (digit byte, ok bool) {
	sum := 0
	for i := range len(payload) {
		c := payload[len(payload)-1-i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int(c - '0')
		if i%2 == 0 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10), true
}
