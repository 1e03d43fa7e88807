"""torch.special's Bessel, Airy, Hurwitz zeta and orthogonal-polynomial functions
(``bessel_j0`` ... ``laguerre_polynomial_l``), written with the array module of the
input (NumPy or CuPy): the Cephes rational / Chebyshev approximations and the
recurrences of torch 2.13's ``ATen/native/Math.h``, branch for branch (the same ranges,
coefficients and special values), vectorized with masks. Computed in the result's dtype
(float32 or float64; ``zeta`` in float64, as torch's accumulate type, then cast).

None of them is differentiable, as torch's: the result does not require grad, except
``zeta``, whose gradient in ``other`` (``q``) is ``-x zeta(x + 1, q)`` and whose
gradient in ``input`` raises NotImplementedError, as torch's.

The coefficient tables are the Cephes Math Library's (3-clause BSD license,
Copyright 1984-2000 Stephen L. Moshier), as torch carries them.
"""
import math as _math

import numpy as _np

import pyad as _pyad
from pyad._out import writes_out as _writes_out

__all__ = ["zeta", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "airy_ai",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "legendre_polynomial_p", "laguerre_polynomial_l"]


# ---------------------------------------------------------------------------------
# Cephes coefficient tables (torch's Math.h)

_AIRY_AI_AN = (
    3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
    1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
    1.40264691163389668864e+01, 9.99999999999999995305e-01,
)

_AIRY_AI_AD = (
    5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
    1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
    1.40959135607834029598e+01, 1.00000000000000000470e+00,
)

_AIRY_AI_AFN = (
    -1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
    -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
    -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08,
)

_AIRY_AI_AFD = (
    1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
    9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
    4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07,
)

_AIRY_AI_AGN = (
    1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
    9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
    5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
    8.11789239554389293311e-08, 3.41551784765923618484e-10,
)

_AIRY_AI_AGD = (
    9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
    5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
    4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
    4.91834570062930015649e-09,
)

_BESSEL_J0_PP = (
    7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
    5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
    9.99999999999999997821e-01,
)

_BESSEL_J0_PQ = (
    9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
    5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
    1.00000000000000000218e+00,
)

_BESSEL_J0_QP = (
    -1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
    -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
    -5.14105326766599330220e+01, -6.05014350600728481186e+00,
)

_BESSEL_J0_QQ = (
    6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
    7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
    2.42005740240291393179e+02,
)

_BESSEL_J0_RP = (
    -4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
    9.70862251047306323952e+15,
)

_BESSEL_J0_RQ = (
    4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
    1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
    3.18121955943204943306e+16, 1.71086294081043136091e+18,
)

_BESSEL_J1_PP = (
    7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
    5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
    1.00000000000000000254e+00,
)

_BESSEL_J1_PQ = (
    5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
    5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
    9.99999999999999997461e-01,
)

_BESSEL_J1_QP = (
    5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
    3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
    2.11688757100572135698e+02, 2.52070205858023719784e+01,
)

_BESSEL_J1_QQ = (
    7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
    9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
    3.36093607810698293419e+02,
)

_BESSEL_J1_RP = (
    -8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
    3.68295732863852883286e+15,
)

_BESSEL_J1_RQ = (
    6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
    2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
    8.95222336184627338078e+16, 5.32278620332680085395e+18,
)

_BESSEL_Y0_PP = _BESSEL_J0_PP

_BESSEL_Y0_PQ = _BESSEL_J0_PQ

_BESSEL_Y0_QP = _BESSEL_J0_QP

_BESSEL_Y0_QQ = _BESSEL_J0_QQ

_BESSEL_Y0_YP = (
    1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
    -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
    4.42733268572569800351e+16, -1.84950800436986690637e+16,
)

_BESSEL_Y0_YQ = (
    1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
    8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
    2.50596256172653059228e+17,
)

_BESSEL_Y1_PP = _BESSEL_J1_PP

_BESSEL_Y1_PQ = _BESSEL_J1_PQ

_BESSEL_Y1_QP = _BESSEL_J1_QP

_BESSEL_Y1_QQ = _BESSEL_J1_QQ

_BESSEL_Y1_YP = (
    1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
    -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17,
)

_BESSEL_Y1_YQ = (
    5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
    1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
    6.87141087355300489866e+16, 3.97270608116560655612e+18,
)

_MODIFIED_BESSEL_I0_A = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09,
    -1.30002500998624804212e-08, 6.04699502254191894932e-08, -2.67079385394061173391e-07,
    1.11738753912010371815e-06, -4.41673835845875056359e-06, 1.64484480707288970893e-05,
    -5.75419501008210370398e-05, 1.88502885095841655729e-04, -5.76375574538582365885e-04,
    1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
    -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02,
    1.71620901522208775349e-01, -3.04682672343198398683e-01, 6.76795274409476084995e-01,
)

_MODIFIED_BESSEL_I0_B = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-09, 2.26666899049817806459e-08, 2.04891858946906374183e-07,
    2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
    8.04490411014108831608e-01,
)

_MODIFIED_BESSEL_I1_A = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
    3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09,
    9.38153738649577178388e-09, -4.44505912879632808065e-08, 2.00329475355213526229e-07,
    -8.56872026469545474066e-07, 3.47025130813767847674e-06, -1.32731636560394358279e-05,
    4.78156510755005422638e-05, -1.61760815825896745588e-04, 5.12285956168575772895e-04,
    -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
    2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01,
    -1.76416518357834055153e-01, 2.52587186443633654823e-01,
)

_MODIFIED_BESSEL_I1_B = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
    3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
    -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
    7.78576235018280120474e-01,
)

_MODIFIED_BESSEL_K0_A = (
    1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
    1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
    1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
    -5.35327393233902768720e-01,
)

_MODIFIED_BESSEL_K0_B = (
    5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
    -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
    6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
    -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
    1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
    -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
    2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
    -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
    2.44030308206595545468e+00,
)

_MODIFIED_BESSEL_K1_A = (
    -7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
    -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
    -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
    -3.53155960776544875667e-01, 1.52530022733894777053e+00,
)

_MODIFIED_BESSEL_K1_B = (
    -5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
    1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
    -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
    3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
    -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
    2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
    -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
    1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
    2.72062619048444266945e+00,
)

# Euler-Maclaurin: (2k)! / B_2k for k = 1 .. 12
_ZETA_A = (
    12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
    -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
    1.8152105401943546773e17, -7.1661652561756670113e18,
)


# ---------------------------------------------------------------------------------
# inputs

_TORCH_DTYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "complex64": "ComplexFloat",
                      "complex128": "ComplexDouble"}


def _compute_dtype(name, dtype):
    """The result dtype of ``name`` for inputs promoting to ``dtype`` (torch's: integers
    and bool give the default float dtype; float16, bfloat16 and complex raise)."""
    dtype = _np.dtype(dtype)
    if dtype.kind in "biu":
        return _np.dtype(_pyad.get_default_dtype())
    if dtype in (_np.float32, _np.float64):
        return dtype
    raise NotImplementedError('special.%s(): "%s_cpu" not implemented for \'%s\''
                              % (name, name, _TORCH_DTYPE_NAMES.get(str(dtype), str(dtype))))


def _is_number(v):
    return isinstance(v, (bool, int, float)) or (
        isinstance(v, _np.generic) and v.dtype.kind in "biuf")


def _unary_input(name, input):
    if not isinstance(input, _pyad.Variable):
        raise TypeError("special.%s(): argument 'input' (position 1) must be Variable, not %s"
                        % (name, type(input).__name__))
    dt = _compute_dtype(name, input.dtype)
    xp = _pyad.get_array_module(input.data)
    return xp, xp.asarray(input.data, dtype=dt), dt


def _binary_dtype(name, a, b, names):
    va, vb = isinstance(a, _pyad.Variable), isinstance(b, _pyad.Variable)
    for v, nm, isvar in ((a, names[0], va), (b, names[1], vb)):
        if not (isvar or _is_number(v)):
            raise TypeError("special.%s(): argument '%s' must be Variable or a number, not %s"
                            % (name, nm, type(v).__name__))
    if not (va or vb):
        raise TypeError("special.%s(): expected a Variable for '%s' or '%s', got %s and %s"
                        % (name, names[0], names[1], type(a).__name__, type(b).__name__))
    dt = _compute_dtype(name, _pyad.result_type(a, b))
    xp = _pyad.get_array_module((a if va else b).data)
    return xp, dt


def _as_array(xp, v, dt):
    return xp.asarray(v.data if isinstance(v, _pyad.Variable) else v, dtype=dt)


def _result(xp, r, dt):
    return _pyad.Variable(xp.asarray(r, dtype=dt))


_MISSING = object()


def _input_or_x(name, input, x):
    # torch's binding takes the first argument as ``input`` or as ``x``
    if input is _MISSING and x is _MISSING:
        raise TypeError("special.%s(): missing 1 required positional argument: 'input'"
                        % name)
    if input is not _MISSING and x is not _MISSING:
        raise TypeError("special.%s(): got multiple values for argument 'input'" % name)
    return x if input is _MISSING else input


def _unary(name, kernel, doc, x_only=False):
    if x_only:
        # scaled_modified_bessel_k0/k1, spherical_bessel_j0, airy_ai: torch names it x
        def fn(x):
            xp, a, dt = _unary_input(name, x)
            with _np.errstate(all="ignore"):
                return _result(xp, kernel(xp, a), dt)
    else:
        def fn(input=_MISSING, *, x=_MISSING):
            xp, a, dt = _unary_input(name, _input_or_x(name, input, x))
            with _np.errstate(all="ignore"):
                return _result(xp, kernel(xp, a), dt)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = "pyad.special"
    return _writes_out(fn, name="special." + name)


# ---------------------------------------------------------------------------------
# Cephes-style evaluation helpers (the exact operation order of torch's Math.h)

def _horner(xp, z, coeffs):
    # acc = 0; acc = acc * z + c for each c (0 * inf is nan there too)
    acc = xp.zeros_like(z)
    for c in coeffs:
        acc = acc * z + c
    return acc


def _chbevl_parts(xp, y, coeffs):
    # torch's inline Chebyshev loop: returns (a, p) with the value 0.5 * (a - p)
    p = xp.zeros_like(y)
    q = xp.zeros_like(y)
    a = xp.zeros_like(y) + coeffs[0]
    for c in coeffs[1:]:
        p = q
        q = a
        a = y * q - p + c
    return a, p


_PIO4 = 0.785398163397448309615660845819875721
_3PIO4 = 2.356194490192344928846982537459627163
_SQ2OPI = 0.797884560802865355879892119868763737
_TWOOPI = 0.636619772367581343075535053490057448


def _j0(xp, x):
    x = xp.abs(x)
    xx = x * x
    mid = ((xx - 5.78318596294678452118e+00) * (xx - 3.04712623436620863991e+01)
           * _horner(xp, xx, _BESSEL_J0_RP) / _horner(xp, xx, _BESSEL_J0_RQ))
    mid = xp.where(x < 0.00001, 1.0 - x * x / 4.0, mid)
    w = 25.0 / xx
    big = ((_horner(xp, w, _BESSEL_J0_PP) / _horner(xp, w, _BESSEL_J0_PQ) * xp.cos(x - _PIO4)
            - 5.0 / x * (_horner(xp, w, _BESSEL_J0_QP) / _horner(xp, w, _BESSEL_J0_QQ))
            * xp.sin(x - _PIO4)) * _SQ2OPI / xp.sqrt(x))
    return xp.where(x <= 5.0, mid, big)


def _j1_nonneg(xp, x):
    xx = x * x
    mid = (_horner(xp, xx, _BESSEL_J1_RP) / _horner(xp, xx, _BESSEL_J1_RQ) * x
           * (xx - 1.46819706421238932572e+01) * (xx - 4.92184563216946036703e+01))
    w = 5.0 / x * (5.0 / x)
    big = ((_horner(xp, w, _BESSEL_J1_PP) / _horner(xp, w, _BESSEL_J1_PQ) * xp.cos(x - _3PIO4)
            - 5.0 / x * (_horner(xp, w, _BESSEL_J1_QP) / _horner(xp, w, _BESSEL_J1_QQ))
            * xp.sin(x - _3PIO4)) * _SQ2OPI / xp.sqrt(x))
    return xp.where(x <= 5.0, mid, big)


def _j1(xp, x):
    neg = x < 0.0
    v = _j1_nonneg(xp, xp.where(neg, -x, x))
    return xp.where(neg, -v, v)


def _y0(xp, x):
    xx = x * x
    small = (_horner(xp, xx, _BESSEL_Y0_YP) / _horner(xp, xx, _BESSEL_Y0_YQ)
             + _TWOOPI * xp.log(x) * _j0(xp, x))
    small = xp.where(x < 0.0, xp.nan, small)
    small = xp.where(x == 0.0, -xp.inf, small)
    w = 25.0 / xx
    big = ((_horner(xp, w, _BESSEL_Y0_PP) / _horner(xp, w, _BESSEL_Y0_PQ) * xp.sin(x - _PIO4)
            + 5.0 / x * (_horner(xp, w, _BESSEL_Y0_QP) / _horner(xp, w, _BESSEL_Y0_QQ))
            * xp.cos(x - _PIO4)) * _SQ2OPI / xp.sqrt(x))
    return xp.where(x <= 5.0, small, big)


def _y1(xp, x):
    xx = x * x
    small = (x * (_horner(xp, xx, _BESSEL_Y1_YP) / _horner(xp, xx, _BESSEL_Y1_YQ))
             + _TWOOPI * (_j1(xp, x) * xp.log(x) - 1.0 / x))
    small = xp.where(x <= 0.0, xp.nan, small)
    small = xp.where(x == 0.0, -xp.inf, small)
    w = 5.0 / x * (5.0 / x)
    big = ((_horner(xp, w, _BESSEL_Y1_PP) / _horner(xp, w, _BESSEL_Y1_PQ) * xp.sin(x - _3PIO4)
            + 5.0 / x * (_horner(xp, w, _BESSEL_Y1_QP) / _horner(xp, w, _BESSEL_Y1_QQ))
            * xp.cos(x - _3PIO4)) * _SQ2OPI / xp.sqrt(x))
    return xp.where(x <= 5.0, small, big)


def _i0(xp, x):
    ax = xp.abs(x)
    a, p = _chbevl_parts(xp, ax / 2.0 - 2.0, _MODIFIED_BESSEL_I0_A)
    small = xp.exp(ax) * (0.5 * (a - p))
    b, p = _chbevl_parts(xp, 32.0 / ax - 2.0, _MODIFIED_BESSEL_I0_B)
    big = xp.exp(ax) * (0.5 * (b - p)) / xp.sqrt(ax)
    return xp.where(ax <= 8.0, small, big)


def _i1(xp, x):
    ax = xp.abs(x)
    a, p = _chbevl_parts(xp, ax / 2.0 - 2.0, _MODIFIED_BESSEL_I1_A)
    small = 0.5 * (a - p) * ax * xp.exp(ax)
    b, p = _chbevl_parts(xp, 32.0 / ax - 2.0, _MODIFIED_BESSEL_I1_B)
    big = xp.exp(ax) * (0.5 * (b - p)) / xp.sqrt(ax)
    v = xp.where(ax <= 8.0, small, big)
    return xp.where(x < 0.0, -v, v)


def _k_edges(xp, x, v):
    v = xp.where(x < 0.0, xp.nan, v)
    return xp.where(x == 0.0, xp.inf, v)


def _k0_small_parts(xp, x):
    a, p = _chbevl_parts(xp, x * x - 2.0, _MODIFIED_BESSEL_K0_A)
    return 0.5 * (a - p)


def _k1_small_parts(xp, x):
    a, p = _chbevl_parts(xp, x * x - 2.0, _MODIFIED_BESSEL_K1_A)
    return 0.5 * (a - p) / x


def _k_big_parts(xp, x, coeffs):
    b, p = _chbevl_parts(xp, 8.0 / x - 2.0, coeffs)
    return 0.5 * (b - p)


def _k0(xp, x):
    # torch writes log(0.5 * x) with a double 0.5: that term is double in float32 too
    chb = _k0_small_parts(xp, x)
    x64 = x.astype(_np.float64)
    small = (chb.astype(_np.float64)
             - xp.log(0.5 * x64) * _i0(xp, x).astype(_np.float64)).astype(x.dtype)
    big = xp.exp(-x) * _k_big_parts(xp, x, _MODIFIED_BESSEL_K0_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= 2.0, small, big))


def _k1(xp, x):
    small = xp.log(0.5 * x) * _i1(xp, x) + _k1_small_parts(xp, x)
    big = xp.exp(-x) * _k_big_parts(xp, x, _MODIFIED_BESSEL_K1_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= 2.0, small, big))


def _k0e(xp, x):
    small = (_k0_small_parts(xp, x) - xp.log(0.5 * x) * _i0(xp, x)) * xp.exp(x)
    big = _k_big_parts(xp, x, _MODIFIED_BESSEL_K0_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= 2.0, small, big))


def _k1e(xp, x):
    small = (xp.log(0.5 * x) * _i1(xp, x) + _k1_small_parts(xp, x)) * xp.exp(x)
    big = _k_big_parts(xp, x, _MODIFIED_BESSEL_K1_B) / xp.sqrt(x)
    return _k_edges(xp, x, xp.where(x <= 2.0, small, big))


def _spherical_j0(xp, x):
    t = x.dtype.type
    xx = x * x
    series = t(1.0) + xx * (t(-1.0) / t(6.0) + xx * (t(1.0) / t(120.0) + xx * (
        t(-1.0) / t(5040.0) + xx * (t(1.0) / t(362880.0) + xx * (
            t(-1.0) / t(39916800.0) + xx * (t(1.0) / t(6227020800.0)))))))
    v = xp.where(xp.abs(x) < 0.5, series, xp.sin(x) / x)
    return xp.where(xp.isinf(x), 0.0, v)


def _airy_ai(xp, x):
    # x < -2.09: the asymptotic (oscillating) form
    xn = xp.where(x < -2.09, x, -4.0)
    z = 1.0 / (-2.0 * xn * xp.sqrt(-xn) / 3.0)
    zz = z * z
    afn = _horner(xp, zz, _AIRY_AI_AFN)
    afd = _horner(xp, zz, _AIRY_AI_AFD)
    agn = _horner(xp, zz, _AIRY_AI_AGN)
    agd = _horner(xp, zz, _AIRY_AI_AGD)
    t = -2.0 * xn * xp.sqrt(-xn) / 3.0 + 0.25 * _math.pi
    neg = (5.64189583547756286948e-01 / xp.sqrt(xp.sqrt(-xn))
           * (xp.sin(t) * (1.0 + zz * afn / afd) - xp.cos(t) * (z * agn / agd)))
    # x >= 2.09: the asymptotic (decaying) form
    xb = xp.where(x >= 2.09, x, 4.0)
    zeta = 2.0 * xb * xp.sqrt(xb) / 3.0
    an = _horner(xp, 1.0 / zeta, _AIRY_AI_AN)
    ad = _horner(xp, 1.0 / zeta, _AIRY_AI_AD)
    pos = 5.64189583547756286948e-01 * (an / ad) / (2.0 * xp.sqrt(xp.sqrt(xb)) * xp.exp(zeta))
    # -2.09 <= x < 2.09 (and nan): the power series, until each term is below epsilon
    series_at = ~((x < -2.09) | (x >= 2.09))
    xs = xp.where(series_at, x, 0.0)
    one = xp.ones_like(xs)
    f, g, k, m, n = one, xs, one, one, xs
    z = xs * xs * xs
    eps = float(_np.finfo(x.dtype).eps)
    active = xp.ones(x.shape, dtype=bool)
    while bool(active.any()):
        m2 = m * z
        k2 = k + 1.0
        m2 = m2 / k2
        n2 = n * z
        k2 = k2 + 1.0
        n2 = n2 / k2
        m2 = m2 / k2
        f2 = f + m2
        k2 = k2 + 1.0
        n2 = n2 / k2
        g2 = g + n2
        f, g, k, m, n = (xp.where(active, f2, f), xp.where(active, g2, g),
                         xp.where(active, k2, k), xp.where(active, m2, m),
                         xp.where(active, n2, n))
        active = active & (xp.abs(m2 / f2) > eps)
    series = 0.355028053887817239260 * f - 0.258819403792806798405 * g
    v = xp.where(x < -2.09, neg, xp.where(x >= 2.09, pos, series))
    v = xp.where(x > 103.892, 0.0, v)
    return xp.where(xp.isinf(x), xp.nan, v)


# ---------------------------------------------------------------------------------
# the Hurwitz zeta function (Cephes' Euler-Maclaurin summation, in float64)

_MACHEP = 1.11022302462515654042E-16


def _zeta_value(xp, x, q):
    # torch's first term is pow(q, -x) in the input dtype, the rest in float64
    s = xp.asarray(q) ** (-xp.asarray(x))
    x, q, s = xp.broadcast_arrays(xp.asarray(x, dtype=_np.float64),
                                  xp.asarray(q, dtype=_np.float64),
                                  xp.asarray(s, dtype=_np.float64))
    res = xp.full(x.shape, xp.nan)
    done = xp.zeros(x.shape, dtype=bool)
    res = xp.where(x == 1.0, xp.inf, res)
    done = done | (x == 1.0) | (x < 1.0)
    qpole = ~done & (q <= 0.0) & (q == xp.floor(q))
    res = xp.where(qpole, xp.inf, res)
    done = done | (q <= 0.0) & ((q == xp.floor(q)) | (x != xp.floor(x)))
    active = ~done
    a = q
    b = xp.zeros_like(s)
    i = 0
    while True:
        go = active & ((i < 9) | (a <= 9.0))
        if not bool(go.any()):
            break
        i += 1
        a = xp.where(go, a + 1.0, a)
        b = xp.where(go, a ** (-x), b)
        s = xp.where(go, s + b, s)
        conv = go & (-_MACHEP * s < b) & (b < _MACHEP * s)
        res = xp.where(conv, s, res)
        active = active & ~conv
    w = a
    s = s + b * w / (x - 1.0)
    s = s - 0.5 * b
    a = xp.ones_like(s)
    k = 0.0
    for c in _ZETA_A:
        a = a * (x + k)
        b = b / w
        t = a * b / c
        s = s + t
        conv = active & (xp.abs(t / s) < _MACHEP)
        res = xp.where(conv, s, res)
        active = active & ~conv
        k += 1.0
        a = a * (x + k)
        b = b / w
        k += 1.0
    return xp.where(active, s, res)


class _Zeta(_pyad.autograd.Function):
    # the value, and torch's derivative in q: -x zeta(x + 1, q) (x enters as data)

    @staticmethod
    def forward(ctx, q, x):
        ctx.save_for_backward(q)
        ctx.x = x
        xp = _pyad.get_array_module(q.data)
        with _np.errstate(all="ignore"):
            v = _zeta_value(xp, x.data, q.data)
        return _pyad.Variable(xp.asarray(v, dtype=q.dtype))

    @staticmethod
    def backward(ctx, grad):
        q, = ctx.saved_tensors
        x = ctx.x
        gq = grad * -x * zeta(x + 1.0, q)
        if gq.shape != q.shape:
            gq = gq.sum_to_size(q.shape)
        return gq, None


class _ZetaNoGradInInput(_pyad.autograd.Function):
    # zeros of the result's shape, added to zeta where its x requires grad: a gradient
    # that flows to x reaches this node and raises torch's NotImplementedError, while
    # one asked for q alone (autograd.grad(out, q)) never runs it, as in torch

    @staticmethod
    def forward(ctx, x, like):
        return _pyad.zeros_like(like)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError(
            "special.zeta(): the derivative for 'zeta' is not implemented.")


def zeta(input=_MISSING, other=_MISSING, *, x=_MISSING):
    """The Hurwitz zeta function ``sum_{k>=0} (k + other) ** -input``, elementwise with
    broadcasting, as ``torch.special.zeta`` (``zeta(x, 1)`` is Riemann's): Cephes'
    Euler-Maclaurin summation in float64, the result in the promoted dtype (integers:
    the default float dtype). ``inf`` at ``x == 1`` and at the poles ``q = 0, -1, ...``,
    ``nan`` for ``x < 1`` and for ``q < 0`` with a non-integer ``x``. Either argument may
    be a Python number. Differentiable in ``other`` (``-x zeta(x + 1, q)``), not in
    ``input`` (NotImplementedError on backward, as torch).

    >>> pyad.special.zeta(pyad.tensor([2.0, 4.0]), 1.0)
    tensor([1.6449, 1.0823])
    """
    input = _input_or_x("zeta", input, x)
    if other is _MISSING:
        raise TypeError("special.zeta(): missing 1 required positional argument: 'other'")
    xp, dt = _binary_dtype("zeta", input, other, ("input", "other"))
    x = (input.to(dt) if isinstance(input, _pyad.Variable)
         else _pyad.Variable(_as_array(xp, input, dt)))
    q = (other.to(dt) if isinstance(other, _pyad.Variable)
         else _pyad.Variable(_as_array(xp, other, dt)))
    out = _Zeta.apply(q, x.detach())
    if x.requires_grad and _pyad.is_grad_enabled():
        out = out + _ZetaNoGradInInput.apply(x, out.detach())
    return out


zeta = _writes_out(zeta, name="special.zeta")


# ---------------------------------------------------------------------------------
# the orthogonal polynomials: torch's special cases, closed forms and recurrences

_SPLIT = 134217729.0   # 2 ** 27 + 1, Veltkamp's splitter


def _fma(xp, a, b, c):
    """``a * b + c`` rounded once, as the fused multiply-add torch's compiled recurrences
    use: exact in float64 for float32 operands; Dekker's two-product and Knuth's two-sum
    in float64 (nearly always the correctly rounded value), the plain expression where
    it is not finite or the split could overflow."""
    if a.dtype == _np.float32:
        f64 = _np.float64
        return (a.astype(f64) * b.astype(f64) + c.astype(f64)).astype(_np.float32)
    a, b, c = xp.broadcast_arrays(a, b, c)
    p = a * b
    plain = p + c
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = plain
    bb = s - p
    es = (p - (s - bb)) + (c - bb)
    fused = s + (es + err)
    safe = xp.isfinite(plain) & (xp.abs(a) < 1e290) & (xp.abs(b) < 1e290)
    return xp.where(safe, fused, plain)


def _c_float_functions():
    # the C library's float acosf/cosf/sinf (torch's float32 CPU kernel calls them; they
    # are not always the correctly rounded value that float64-then-round gives)
    try:
        import ctypes
        import ctypes.util
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fns = {}
        for name in ("acos", "cos", "sin"):
            f = getattr(libm, name + "f")
            f.restype = ctypes.c_float
            f.argtypes = [ctypes.c_float]
            fns[name] = _np.frompyfunc(f, 1, 1)
        return fns
    except (OSError, AttributeError, TypeError):
        return None


_C_FLOAT = _c_float_functions()
_C_DOUBLE = {name: _np.frompyfunc(getattr(_math, name), 1, 1) for name in ("acos", "cos", "sin")}
_XP_NAMES = {"acos": "arccos", "cos": "cos", "sin": "sin"}


def _libm(xp, name, v, where):
    """The C library's ``name`` (acos, cos or sin) of ``v`` at ``where`` (0 elsewhere),
    as torch's CPU kernel calls it: NumPy's own SIMD loops differ in the last bit in
    about one value in ten, which cos(n acos x) multiplies by n. CuPy: its own."""
    if xp is not _np:
        return getattr(xp, _XP_NAMES[name])(xp.where(where, v, 0.0))
    out = _np.zeros(v.shape, dtype=v.dtype)
    if where.any():
        sel = v[where]
        if v.dtype == _np.float32 and _C_FLOAT is not None:
            out[where] = _C_FLOAT[name](sel).astype(_np.float32)
        elif v.dtype == _np.float32:
            out[where] = getattr(_np, _XP_NAMES[name])(sel.astype(_np.float64))
        else:
            out[where] = _C_DOUBLE[name](sel).astype(_np.float64)
    return out


def _n_int(xp, n):
    # torch: static_cast<int64_t>(n) in the result dtype; non-finite and out-of-range
    # values give a negative n (x86's INT64_MIN; hermite_polynomial_h's -1), hence 0
    ok = xp.isfinite(n) & (xp.abs(n) < 9.2e18)
    return xp.where(ok, xp.trunc(xp.where(ok, n, -1.0)), -1.0).astype(_np.int64)


def _recurrence(xp, n, first, step, nan_stop, n_last):
    """Runs ``r = step(k, p, q)`` for k = k0.. and returns, per element, the value of
    the step whose k is ``n_last(n)`` (torch's loop: ``p, q = q, r``; ``nan_stop``: the
    loop ends once q is nan, leaving that nan)."""
    p0, q0, k0 = first
    res = q0
    targets = n_last(n)
    live = targets >= k0
    if not bool(live.any()):
        return res
    kmax = int(xp.max(xp.where(live, targets, k0)))
    p, q = p0, q0
    k = k0
    while k <= kmax:
        r = step(k, p, q)
        p, q = q, r
        res = xp.where(targets == k, r, res)
        if nan_stop and not bool((live & (targets > k) & ~xp.isnan(q)).any()):
            break
        k += 1
    if nan_stop:
        res = xp.where(targets > k, q, res)
    return res


def _chebyshev(kind, shifted, xp, x, n, dt):
    N = _n_int(xp, n)
    one = xp.ones_like(x)
    y = x + x - 1.0 if shifted else x
    nf1 = (N + 1).astype(dt)
    n2p1 = (N + N + 1).astype(dt)
    even = N % 2 == 0
    if kind == "t":
        at_plus, at_minus = one, xp.where(even, 1.0, -1.0)
        first = y
    elif kind == "u":
        at_plus, at_minus = nf1, xp.where(even, nf1, -nf1)
        first = y + y
    elif kind == "v":
        at_plus, at_minus = one, xp.where(even, n2p1, -n2p1)
        first = y + y - 1.0
    else:
        at_plus, at_minus = n2p1, xp.where(even, 1.0, -1.0)
        first = y + y + 1.0
    if shifted:
        is_plus, is_minus = x == 1.0, x == 0.0
        threshold = {"t": 6, "u": 6, "v": 6, "w": 4}[kind]
    else:
        is_plus, is_minus = xp.abs(x) == 1.0, xp.zeros(x.shape, dtype=bool)
        # torch: |x| == 1 takes the "+1" value where x > 0 (or, for T/U/legendre, n even)
        is_minus = is_plus & (x < 0.0)
        is_plus = is_plus & (x > 0.0)
        threshold = {"t": 6, "u": 8, "v": 8, "w": 8}[kind]
    closed_at = (N > threshold) & (xp.abs(y) < 1.0)
    th = _libm(xp, "acos", y, closed_at)

    def cos(v):
        return _libm(xp, "cos", v, closed_at)

    def sin(v):
        return _libm(xp, "sin", v, closed_at)

    if kind == "t":
        closed = cos(N.astype(dt) * th)
    elif kind == "u":
        s = sin(th)
        closed = xp.where(s != 0.0, sin(nf1 * th) / s, nf1 * cos(nf1 * th) / y)
    elif kind == "v":
        closed = xp.where(sin(th / 2.0) != 1.0,
                          cos((N.astype(dt) + 0.5) * th) / cos(th / 2.0), at_minus)
    else:
        fallback = at_minus if shifted else xp.where(x > 0.0, n2p1, at_minus)
        closed = xp.where(cos(th / 2.0) != 1.0,
                          sin((N.astype(dt) + 0.5) * th) / sin(th / 2.0), fallback)
    yy = y + y
    rec = _recurrence(xp, xp.where(closed_at | is_plus | is_minus, 0, N),
                      (one, first, 2), lambda k, p, q: _fma(xp, yy, q, -p), True,
                      lambda m: m)
    v = xp.where(N == 1, first, rec)
    v = xp.where(N == 0, 1.0, v)
    v = xp.where(closed_at, closed, v)
    v = xp.where(is_minus, at_minus, v)
    v = xp.where(is_plus, at_plus, v)
    return xp.where(N < 0, 0.0, v)


def _hermite_h(xp, x, n, dt):
    N = _n_int(xp, n)
    limit = 128 if dt == _np.float32 else 512
    two_x = x + x
    rec = _recurrence(xp, xp.where(N > limit, 0, N), (xp.ones_like(x), two_x, 1),
                      lambda j, p, q: _fma(xp, two_x, q, -((2 * j) * p)), False, lambda m: m - 1)
    v = xp.where(N > limit, xp.nan, rec)
    v = xp.where(N == 1, two_x, v)
    v = xp.where(N == 0, 1.0, v)
    return xp.where(N < 0, 0.0, v)


def _hermite_he(xp, x, n, dt):
    N = _n_int(xp, n)
    limit = 128 if dt == _np.float32 else 512
    rec = _recurrence(xp, xp.where(N > limit, 0, N), (xp.ones_like(x), x, 1),
                      lambda k, p, q: _fma(xp, x, q, -(k * p)), False, lambda m: m - 1)
    v = xp.where(N > limit, xp.nan, rec)
    v = xp.where(N == 1, x, v)
    v = xp.where(N == 0, 1.0, v)
    return xp.where(N < 0, 0.0, v)


def _laguerre(xp, x, n, dt):
    N = _n_int(xp, n)
    first = 1.0 - x
    rec = _recurrence(xp, xp.where(x == 0.0, 0, N), (xp.ones_like(x), first, 1),
                      lambda k, p, q: _fma(xp, (k + k) + (1.0 - x), q, -(k * p)) / (k + 1), True,
                      lambda m: m - 1)
    v = xp.where(N == 1, first, rec)
    v = xp.where((N == 0) | (xp.abs(x) == 0.0), 1.0, v)
    return xp.where(N < 0, 0.0, v)


def _legendre(xp, x, n, dt):
    N = _n_int(xp, n)
    at_one = xp.abs(x) == 1.0
    rec = _recurrence(xp, xp.where(at_one, 0, N), (xp.ones_like(x), x, 1),
                      lambda k, p, q: _fma(xp, (k + k + 1) * x, q, -(k * p)) / (k + 1), True,
                      lambda m: m - 1)
    v = xp.where(N == 1, x, rec)
    v = xp.where(N == 0, 1.0, v)
    v = xp.where(at_one, xp.where((x > 0.0) | (N % 2 == 0), 1.0, -1.0), v)
    return xp.where(N < 0, 0.0, v)


def _polynomial(name, kernel, doc):
    def fn(x, n):
        xp, dt = _binary_dtype(name, x, n, ("x", "n"))
        xa, na = xp.broadcast_arrays(_as_array(xp, x, dt), _as_array(xp, n, dt))
        with _np.errstate(all="ignore"):
            return _result(xp, kernel(xp, xa, na, dt), dt)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = "pyad.special"
    return _writes_out(fn, name="special." + name)


def _cheb(kind, shifted):
    return lambda xp, x, n, dt: _chebyshev(kind, shifted, xp, x, n, dt)


# ---------------------------------------------------------------------------------
# the public functions

def _unary_doc(what, extra=""):
    return ("%s, elementwise, as ``torch.special`` computes it (its Cephes approximation, "
            "range for range). Integer and bool input give the default float dtype; "
            "float16, bfloat16 and complex raise NotImplementedError, as torch's. Not "
            "differentiable: the result does not require grad, as torch's.%s" % (what, extra))


bessel_j0 = _unary("bessel_j0", _j0, _unary_doc(
    "The Bessel function of the first kind of order 0, ``J0(input)``",
    "\n\n    >>> pyad.special.bessel_j0(pyad.tensor([0.0, 1.0]))\n    tensor([1.0000, 0.7652])\n"))
bessel_j1 = _unary("bessel_j1", _j1, _unary_doc(
    "The Bessel function of the first kind of order 1, ``J1(input)``"))
bessel_y0 = _unary("bessel_y0", _y0, _unary_doc(
    "The Bessel function of the second kind of order 0, ``Y0(input)`` (``-inf`` at 0, "
    "``nan`` below)"))
bessel_y1 = _unary("bessel_y1", _y1, _unary_doc(
    "The Bessel function of the second kind of order 1, ``Y1(input)`` (``-inf`` at 0, "
    "``nan`` below)"))
modified_bessel_i0 = _unary("modified_bessel_i0", _i0, _unary_doc(
    "The modified Bessel function of the first kind of order 0, ``I0(input)``"))
modified_bessel_i1 = _unary("modified_bessel_i1", _i1, _unary_doc(
    "The modified Bessel function of the first kind of order 1, ``I1(input)``"))
modified_bessel_k0 = _unary("modified_bessel_k0", _k0, _unary_doc(
    "The modified Bessel function of the second kind of order 0, ``K0(input)`` (``inf`` "
    "at 0, ``nan`` below)"))
modified_bessel_k1 = _unary("modified_bessel_k1", _k1, _unary_doc(
    "The modified Bessel function of the second kind of order 1, ``K1(input)`` (``inf`` "
    "at 0, ``nan`` below)"))
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", _k0e, _unary_doc(
    "The scaled modified Bessel function of the second kind of order 0, "
    "``exp(x) K0(x)``"), x_only=True)
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", _k1e, _unary_doc(
    "The scaled modified Bessel function of the second kind of order 1, "
    "``exp(x) K1(x)``"), x_only=True)
spherical_bessel_j0 = _unary("spherical_bessel_j0", _spherical_j0, _unary_doc(
    "The spherical Bessel function of the first kind of order 0, ``sin(x) / x`` (a "
    "series below 0.5, 0 at +-inf)"), x_only=True)
airy_ai = _unary("airy_ai", _airy_ai, _unary_doc(
    "The Airy function ``Ai(x)`` (``nan`` at +-inf, 0 above 103.892)"), x_only=True)


def _poly_doc(what, extra=""):
    return ("%s, elementwise with broadcasting, as ``torch.special``'s: ``n`` (a Variable "
            "or a Python number, as is ``x``, not both numbers) is cast to the result dtype "
            "and truncated to an integer; ``n < 0`` (and a non-finite ``n``) gives 0. "
            "torch's special cases, closed forms and recurrences, step for step. Integer "
            "and bool input give the default float dtype; float16, bfloat16 and complex "
            "raise NotImplementedError. Not differentiable: the result does not require "
            "grad, as torch's.%s" % (what, extra))


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _cheb("t", False), _poly_doc(
    "The Chebyshev polynomial of the first kind ``T_n(x)`` (``cos(n acos x)`` for "
    "``n > 6`` and ``|x| < 1``)",
    "\n\n    >>> pyad.special.chebyshev_polynomial_t(pyad.tensor([0.5, 2.0]), 3)\n"
    "    tensor([-1., 26.])\n"))
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _cheb("u", False), _poly_doc(
    "The Chebyshev polynomial of the second kind ``U_n(x)``"))
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _cheb("v", False), _poly_doc(
    "The Chebyshev polynomial of the third kind ``V_n(x)``"))
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _cheb("w", False), _poly_doc(
    "The Chebyshev polynomial of the fourth kind ``W_n(x)``"))
shifted_chebyshev_polynomial_t = _polynomial(
    "shifted_chebyshev_polynomial_t", _cheb("t", True), _poly_doc(
        "The shifted Chebyshev polynomial of the first kind ``T*_n(x) = T_n(2x - 1)``"))
shifted_chebyshev_polynomial_u = _polynomial(
    "shifted_chebyshev_polynomial_u", _cheb("u", True), _poly_doc(
        "The shifted Chebyshev polynomial of the second kind ``U*_n(x) = U_n(2x - 1)``"))
shifted_chebyshev_polynomial_v = _polynomial(
    "shifted_chebyshev_polynomial_v", _cheb("v", True), _poly_doc(
        "The shifted Chebyshev polynomial of the third kind ``V*_n(x) = V_n(2x - 1)``"))
shifted_chebyshev_polynomial_w = _polynomial(
    "shifted_chebyshev_polynomial_w", _cheb("w", True), _poly_doc(
        "The shifted Chebyshev polynomial of the fourth kind ``W*_n(x) = W_n(2x - 1)``"))
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _hermite_h, _poly_doc(
    "The physicists' Hermite polynomial ``H_n(x)`` (``nan`` for ``n`` above 128 in "
    "float32, 512 in float64, as torch's)"))
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _hermite_he, _poly_doc(
    "The probabilists' Hermite polynomial ``He_n(x)`` (``nan`` for ``n`` above 128 in "
    "float32, 512 in float64, as torch's)"))
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _legendre, _poly_doc(
    "The Legendre polynomial ``P_n(x)``"))
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _laguerre, _poly_doc(
    "The Laguerre polynomial ``L_n(x)``"))
