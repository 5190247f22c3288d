/* cmocka 1.1.5 (Debian 12) has no assert_double_equal: this header supplies it. Include after
 * <cmocka.h>. */
#ifndef TEST_ASSERT_H
#define TEST_ASSERT_H
#include <math.h>
#include <stdio.h>
#ifndef assert_double_equal
#define assert_double_equal(a, b, eps)                                                       \
  do {                                                                                       \
    double a_ = (a), b_ = (b);                                                               \
    if (!(fabs(a_ - b_) <= (eps))) {                                                         \
      print_error("%s = %.17g, expected %.17g (tolerance %g)\n", #a, a_, b_, (double)(eps)); \
      _fail(__FILE__, __LINE__);                                                             \
    }                                                                                        \
  } while (0)
#endif
#endif
