package stored

// Window returns the offset and count of items on page (zero-based) of
// perPage items among total, and whether items follow it. perPage 0 means
// every item on page 0, and none on later pages.
func Window(page, perPage, total int) (offset, count int, hasMore bool) {
	if perPage == 0 {
		if page > 0 {
			return total, 0, false
		}
		return 0, total, false
	}
	offset = page * perPage
	if offset >= total || offset < 0 {
		return total, 0, false
	}
	count = min(perPage, total-offset)
	return offset, count, offset+count < total
}

// Last returns the offset and count of the last n items among total, and
// whether items precede them.
func Last(n, total int) (offset, count int, hasMore bool) {
	count = min(n, total)
	return total - count, count, count < total
}
