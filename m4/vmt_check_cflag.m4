# SPDX-License-Identifier: GPL-2.0-or-later
# VMT_CHECK_CFLAG(FLAG, ACTION-IF-OK): run ACTION-IF-OK when $CC accepts FLAG with -Werror.
AC_DEFUN([VMT_CHECK_CFLAG], [
	AC_MSG_CHECKING([whether $CC accepts $1])
	vmt_save_CFLAGS="$CFLAGS"
	CFLAGS="$CFLAGS -Werror $1"
	AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
			  [AC_MSG_RESULT([yes]); $2], [AC_MSG_RESULT([no])])
	CFLAGS="$vmt_save_CFLAGS"
])
