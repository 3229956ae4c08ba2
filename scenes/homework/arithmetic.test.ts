import { describe, expect, it } from 'vitest';
import { type GradeResult, gradeProblem } from './arithmetic.js';

type Row = [text: string, verdict: GradeResult['verdict'], correct: string | null, reason: string | undefined, kind: GradeResult['kind']];

const grade = (text: string, confidence = 0.95, minCharConfidence?: number) =>
  gradeProblem({ text, confidence, ...(minCharConfidence === undefined ? {} : { minCharConfidence }) });

const check = ([text, verdict, correct, reason, kind]: Row): void => {
  const g = grade(text);
  expect({ verdict: g.verdict, correct: g.correct_answer, reason: g.reason, kind: g.kind }).toEqual({ verdict, correct, reason, kind });
};

describe('gradeProblem: expressions', () => {
  it.each<Row>([
    ['23+45=68', 'correct', '68', undefined, 'expression'],
    ['23+45=67', 'incorrect', '68', 'wrong_answer', 'expression'],
    ['7×8=56', 'correct', '56', undefined, 'expression'],
    ['7×8=54', 'incorrect', '56', 'wrong_answer', 'expression'],
    ['56÷7=8', 'correct', '8', undefined, 'expression'],
    ['100-37=63', 'correct', '63', undefined, 'expression'],
    // Precedence and brackets.
    ['2+3×4=14', 'correct', '14', undefined, 'expression'],
    ['2+3×4=20', 'incorrect', '14', 'wrong_answer', 'expression'],
    ['(2+3)×4=20', 'correct', '20', undefined, 'expression'],
    ['36-12÷4=33', 'correct', '33', undefined, 'expression'],
    ['(36-12)÷4=6', 'correct', '6', undefined, 'expression'],
    ['8×(9-4)+6=46', 'correct', '46', undefined, 'expression'],
    ['81÷9×3=27', 'correct', '27', undefined, 'expression'],
    ['50-20-10=20', 'correct', '20', undefined, 'expression'],
    ['[(2+3)×4]-5=15', 'correct', '15', undefined, 'expression'],
    ['（３＋４）×２＝１４', 'correct', '14', undefined, 'expression'],
    // Decimals: trailing zeros are the same number.
    ['0.5+0.25=0.75', 'correct', '0.75', undefined, 'expression'],
    ['1.2+0.3=1.5', 'correct', '1.5', undefined, 'expression'],
    ['1.2+0.3=1.50', 'correct', '1.5', undefined, 'expression'],
    ['0.1+0.2=0.3', 'correct', '0.3', undefined, 'expression'],
    ['2.5×4=10', 'correct', '10', undefined, 'expression'],
    ['1.5+1.5=3.5', 'incorrect', '3', 'wrong_answer', 'expression'],
    // Fractions (grade 3: same denominators, results not reduced).
    ['1/5+2/5=3/5', 'correct', '3/5', undefined, 'expression'],
    ['1/4+1/4=2/4', 'correct', '1/2', undefined, 'expression'],
    ['1/4+1/4=1/2', 'correct', '1/2', undefined, 'expression'],
    ['1-1/3=2/3', 'correct', '2/3', undefined, 'expression'],
    ['4/7-2/7=1/7', 'incorrect', '2/7', 'wrong_answer', 'expression'],
    ['1/2+1/2=1', 'correct', '1', undefined, 'expression'],
    // Units of one kind.
    ['5元+3元=8元', 'correct', '8元', undefined, 'expression'],
    ['5元+3元=8', 'correct', '8元', undefined, 'expression'],
    ['5元+3元=9元', 'incorrect', '8元', 'wrong_answer', 'expression'],
    ['35厘米-15厘米=20厘米', 'correct', '20厘米', undefined, 'expression'],
    ['5元+3元=8角', 'uncertain', '8元', 'unit_conversion', 'expression'],
    // Item numbers are not part of the problem.
    ['(3)23+45=68', 'correct', '68', undefined, 'expression'],
    ['2、7×8=56', 'correct', '56', undefined, 'expression'],
    ['第1题 7×8=56', 'correct', '56', undefined, 'expression'],
  ])('%s → %s', (...row) => check(row));
});

describe('gradeProblem: fill-in blanks in every position', () => {
  it.each<Row>([
    ['30+(20)=50', 'correct', '20', undefined, 'fill_blank'],
    ['30+(30)=50', 'incorrect', '20', 'wrong_answer', 'fill_blank'],
    ['(30)+20=50', 'correct', '30', undefined, 'fill_blank'],
    ['(25)+20=50', 'incorrect', '30', 'wrong_answer', 'fill_blank'],
    ['30+20=(50)', 'correct', '50', undefined, 'fill_blank'],
    ['30+20=(40)', 'incorrect', '50', 'wrong_answer', 'fill_blank'],
    ['50-(20)=30', 'correct', '20', undefined, 'fill_blank'],
    ['(80)-20=60', 'correct', '80', undefined, 'fill_blank'],
    ['(7)×8=56', 'correct', '7', undefined, 'fill_blank'],
    ['7×(8)=56', 'correct', '8', undefined, 'fill_blank'],
    ['(56)÷7=8', 'correct', '56', undefined, 'fill_blank'],
    ['56÷(7)=8', 'correct', '7', undefined, 'fill_blank'],
    ['56÷(8)=8', 'incorrect', '7', 'wrong_answer', 'fill_blank'],
    ['3+(4)×2=11', 'correct', '4', undefined, 'fill_blank'],
    ['50=(20)+30', 'correct', '20', undefined, 'fill_blank'],
    ['1/5+(2/5)=3/5', 'correct', '2/5', undefined, 'fill_blank'],
    ['30+□=50', 'uncertain', '20', 'blank_maybe_unread', 'fill_blank'],
    ['30+( )=50', 'uncertain', '20', 'blank_maybe_unread', 'fill_blank'],
    ['30+____=50', 'uncertain', '20', 'blank_maybe_unread', 'fill_blank'],
    // OCR dropped the closing bracket; only one place for it.
    ['30+(20=50', 'correct', '20', undefined, 'fill_blank'],
  ])('%s → %s', (...row) => check(row));

  it('shows the question with the blank as () and the answer inside it', () => {
    expect(grade('30+（20）=50')).toMatchObject({ question: '30+()=50', student_answer: '20', correct_answer: '20' });
    expect(grade('(30)+20=50')).toMatchObject({ question: '()+20=50', student_answer: '30' });
    expect(grade('30+20=( )')).toMatchObject({ question: '30+20=()', student_answer: '', verdict: 'uncertain', reason: 'blank_maybe_unread' });
  });
});

describe('gradeProblem: comparisons', () => {
  it.each<Row>([
    ['45<54', 'correct', '<', undefined, 'compare'],
    ['45>54', 'incorrect', '<', 'wrong_sign', 'compare'],
    ['45=54', 'uncertain', null, 'no_operator', 'ambiguous'],
    ['45(>)54', 'incorrect', '<', 'wrong_sign', 'compare'],
    ['45○<54', 'correct', '<', undefined, 'compare'],
    ['3+4<8', 'correct', '<', undefined, 'compare'],
    ['3+4>8', 'incorrect', '<', 'wrong_sign', 'compare'],
    ['8>3+4', 'correct', '>', undefined, 'compare'],
    ['30=3×10', 'correct', '=', undefined, 'compare'],
    ['3+4=2+5', 'correct', '=', undefined, 'compare'],
    ['6×7>40', 'correct', '>', undefined, 'compare'],
    ['1/3>1/4', 'correct', '>', undefined, 'compare'],
    ['0.5=1/2', 'uncertain', null, 'no_operator', 'ambiguous'],
    ['0.5(=)1/2', 'correct', '=', undefined, 'compare'],
    ['45○54', 'incorrect', '<', 'blank', 'compare'],
    ['45＞54', 'incorrect', '<', 'wrong_sign', 'compare'],
    ['5-11>6', 'uncertain', null, 'negative_result', 'ambiguous'],
    // The circle read as a bracket that never closes.
    ['24+33(=57', 'correct', '=', undefined, 'compare'],
    ['58+17(<85', 'correct', '<', undefined, 'compare'],
    ['19+35(>54', 'incorrect', '=', 'wrong_sign', 'compare'],
    ['45○=54', 'incorrect', '<', 'wrong_sign', 'compare'],
    // A bracket that closes, or a fill-in blank whose bracket lost its end, is not a circle.
    ['30+(=34', 'uncertain', null, 'operator_without_operand', 'ambiguous'],
  ])('%s → %s', (...row) => check(row));

  it('shows the question with the circle and the sign the child wrote', () => {
    expect(grade('3+4>8')).toMatchObject({ question: '3+4○8', student_answer: '>', correct_answer: '<' });
  });
});

describe('gradeProblem: division with a remainder', () => {
  it.each<Row>([
    ['17÷5=3……2', 'correct', '3……2', undefined, 'remainder'],
    ['17÷5=3...2', 'correct', '3……2', undefined, 'remainder'],
    ['17÷5=3…2', 'correct', '3……2', undefined, 'remainder'],
    ['17÷5=3……1', 'incorrect', '3……2', 'wrong_remainder', 'remainder'],
    ['17÷5=2……7', 'incorrect', '3……2', 'remainder_too_large', 'remainder'],
    ['17÷5=4……2', 'incorrect', '3……2', 'wrong_quotient', 'remainder'],
    ['3÷5=0……3', 'correct', '0……3', undefined, 'remainder'],
    ['15÷5=3……0', 'correct', '3', undefined, 'remainder'],
    ['17/5=3...2', 'correct', '3……2', undefined, 'remainder'],
    ['17÷5=(3)……(2)', 'correct', '3……2', undefined, 'remainder'],
    // No remainder has a point: unreadable, unless the quotient is wrong anyway.
    ['61÷7=7……1.2', 'incorrect', '8……5', 'wrong_quotient', 'remainder'],
    ['61÷7=8……1.2', 'uncertain', '8……5', 'unreadable_answer', 'remainder'],
    ['61÷7=8.5……1', 'uncertain', null, 'unreadable_answer', 'ambiguous'],
    ['23÷7=2……', 'incorrect', '3……2', 'wrong_quotient', 'remainder'],
    // Dots read as a point and a dot are a guess: wrong only if wrong as a point and as specks too.
    ['23÷7=2.·9', 'incorrect', '3……2', 'remainder_too_large', 'remainder'],
    ['17÷5=3.·4', 'uncertain', '3……2', 'look_alike_in_answer', 'remainder'],
    ['23÷7=3……', 'uncertain', '3……2', 'unreadable_answer', 'remainder'],
    // The remainder may be on the page and lost by OCR.
    ['17÷5=3', 'uncertain', '3……2', 'remainder_not_read', 'remainder'],
    ['17÷5=32', 'uncertain', '3……2', 'remainder_not_read', 'remainder'],
    ['17÷5=3.2', 'uncertain', '3……2', 'remainder_not_read', 'remainder'],
    // So may the quotient with the dots (14÷3=4……2 read as 14÷3=2 on an easy page).
    ['17÷5=2', 'uncertain', '3……2', 'remainder_not_read', 'remainder'],
    ['17÷5=7', 'incorrect', '3……2', 'wrong_quotient', 'remainder'],
    // 3.4 is the exact value.
    ['17÷5=3.4', 'correct', '3……2', undefined, 'remainder'],
    ['17÷5=', 'incorrect', '3……2', 'blank', 'remainder'],
    ['17÷0=3……2', 'uncertain', null, 'division_by_zero', 'ambiguous'],
  ])('%s → %s', (...row) => check(row));
});

describe('gradeProblem: look-alikes', () => {
  it.each<Row>([
    ['7x8=56', 'correct', '56', undefined, 'expression'],
    ['7X8=56', 'correct', '56', undefined, 'expression'],
    ['7*8=56', 'correct', '56', undefined, 'expression'],
    ['56:7=8', 'correct', '8', undefined, 'expression'],
    ['2O+3O=5O', 'correct', '50', undefined, 'expression'],
    ['l2+3=15', 'correct', '15', undefined, 'expression'],
    ['9一3=6', 'correct', '6', undefined, 'expression'],
    ['3十5=8', 'correct', '8', undefined, 'expression'],
    ['56/7=8', 'correct', '8', undefined, 'expression'],
    ['3+4二7', 'correct', '7', undefined, 'expression'],
    ['61-{38+20)=3', 'correct', '3', undefined, 'expression'],
    ['40+(43}=83', 'correct', '43', undefined, 'fill_blank'],
    // A look-alike in the answer never makes it wrong.
    ['12+3=l6', 'uncertain', '15', 'look_alike_in_answer', 'expression'],
    ['20+30=6O', 'uncertain', '50', 'look_alike_in_answer', 'expression'],
    ['45O54', 'uncertain', '<', 'blank_maybe_unread', 'compare'],
    ['45〉54', 'uncertain', '<', 'look_alike_in_answer', 'compare'],
    ['3。5+1=4.5', 'uncertain', '36', 'look_alike_in_question', 'expression'],
    // A gap between digits may be a sign OCR did not see: 3+4+5=12.
    ['3 4+5=12', 'uncertain', '39', 'look_alike_in_question', 'expression'],
    ['23+45=6 8', 'correct', '68', undefined, 'expression'],
    ['23+45=6 7', 'uncertain', '68', 'look_alike_in_answer', 'expression'],
    // Another reading of a guessed operator makes the answer right: 7+8=15.
    ['7x8=15', 'uncertain', '56', 'look_alike_in_question', 'expression'],
    ['9:3=27', 'uncertain', '3', 'look_alike_in_question', 'expression'],
    ['9一3=12', 'uncertain', '6', 'look_alike_in_question', 'expression'],
    // …and when no reading does, a confident wrong answer is wrong.
    ['7x8=54', 'incorrect', '56', 'wrong_answer', 'expression'],
    // A fraction bar read as 1, in the question or the answer.
    ['217+4/7=6/7', 'uncertain', '1523/7', 'fraction_bar_may_be_misread', 'expression'],
    ['2/7+4/7=617', 'uncertain', '6/7', 'fraction_bar_may_be_misread', 'expression'],
    ['2/7+4/7=5/7', 'incorrect', '6/7', 'wrong_answer', 'expression'],
  ])('%s → %s', (...row) => check(row));

  it('each guessed look-alike lowers the confidence', () => {
    expect(grade('7×8=56').confidence).toBe(0.95);
    expect(grade('7x8=56').confidence).toBe(0.9);
    expect(grade('2O+3O=5O').confidence).toBe(0.8);
  });

  it('a certain variant (full width, a real minus sign) costs nothing', () => {
    expect(grade('９−３＝６')).toMatchObject({ verdict: 'correct', confidence: 0.95 });
  });

  it('strictLookalikeAnswers leaves even a matching guessed answer uncertain', () => {
    expect(gradeProblem({ text: '20+30=5O', confidence: 0.95 }, { strictLookalikeAnswers: true })).toMatchObject({ verdict: 'uncertain', reason: 'look_alike_in_answer' });
    expect(gradeProblem({ text: '20+30=5O', confidence: 0.95 }).verdict).toBe('correct');
  });

  it('several guesses can bring a wrong answer under the confidence floor', () => {
    expect(grade('2O+3O=6O').verdict).toBe('uncertain');
    expect(grade('2O+3O=60', 0.86)).toMatchObject({ verdict: 'uncertain', reason: 'low_confidence' });
    expect(grade('20+30=60', 0.86)).toMatchObject({ verdict: 'incorrect', reason: 'wrong_answer' });
  });
});

describe('gradeProblem: confidence and blanks', () => {
  it('low OCR confidence is never wrong; it confirms a right answer only down to a floor', () => {
    expect(grade('23+45=68', 0.59)).toMatchObject({ verdict: 'uncertain', reason: 'low_confidence', correct_answer: '68' });
    expect(grade('23+45=68', 0.6)).toMatchObject({ verdict: 'correct', reason: 'low_confidence' });
    expect(grade('23+45=68', 0.95, 0.29)).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    expect(grade('23+45=67', 0.79)).toMatchObject({ verdict: 'uncertain', reason: 'low_confidence' });
    expect(grade('23+45=67', 0.8)).toMatchObject({ verdict: 'incorrect', reason: 'wrong_answer' });
  });

  it('a weak character is uncertain even when the line reads well', () => {
    expect(grade('23+45=67', 0.95, 0.3)).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    expect(grade('23+45=67', 0.95, 0.7)).toMatchObject({ verdict: 'incorrect' });
  });

  it('a wrong answer whose weak characters make it right under no reading of them is wrong', () => {
    const weak = (text: string, weakChars: { at: number; runnerUp?: string }[], minCharConfidence = 0.4) =>
      gradeProblem({ text, confidence: 0.92, minCharConfidence, weakChars });
    // The "=" was weak: whatever it is, 50-12 is not 48.
    expect(weak('50-12=48', [{ at: 5, runnerUp: '~' }])).toMatchObject({ verdict: 'incorrect', reason: 'wrong_answer' });
    // A weak "-" may be a "+" (its second choice, or any operator): 49+43=92 is right.
    expect(weak('49-43=92', [{ at: 2, runnerUp: '.' }])).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    // A weak digit's second choice makes it right: 23+45=68 read 67.
    expect(weak('23+45=67', [{ at: 7, runnerUp: '8' }])).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    // A weak digit may be a speck: 15+6=21 read 214.
    expect(weak('15+6=214', [{ at: 7, runnerUp: '1' }])).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    // Two weak characters are read in every combination: the 3 and the × of 3×5=15 read 4+5=15.
    expect(weak('4+5=15', [{ at: 0, runnerUp: '3' }, { at: 1, runnerUp: '÷' }])).toMatchObject({ verdict: 'uncertain' });
    expect(weak('4+5=15', [{ at: 0, runnerUp: '7' }, { at: 1, runnerUp: '÷' }])).toMatchObject({ verdict: 'incorrect' });
    // A weak bracket left out would only make a bracket to put back: not a reading.
    expect(weak('4×(29-20)=63', [{ at: 8, runnerUp: ')' }])).toMatchObject({ verdict: 'incorrect' });
    // A remainder's guessed dots may be one point or nothing: 58÷8=6……10 is wrong all three ways,
    // 7÷2=3……5 is right as 3.5 and 50÷2=2……5 as 25.
    expect(weak('58÷8=6……10', [{ at: 6 }])).toMatchObject({ verdict: 'incorrect', student_answer: '6……10' });
    expect(weak('7÷2=3……5', [{ at: 5 }])).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    expect(weak('50÷2=2……5', [{ at: 6 }])).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    // With a weak digit after them: 54÷14=3……12 read as 3……11, the last 1's second choice a 2.
    expect(weak('54÷14=3……11', [{ at: 7 }, { at: 10, runnerUp: '2' }])).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    // Below the floor, nothing written, or without the list: uncertain as before.
    expect(weak('50-12=48', [{ at: 5, runnerUp: '~' }], 0.29)).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    expect(weak('50-12=', [{ at: 2, runnerUp: '+' }])).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    expect(grade('50-12=48', 0.92, 0.4)).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    // More than three weak characters stay uncertain.
    expect(weak('50-12=48', [0, 1, 3, 4].map((at) => ({ at })))).toMatchObject({ verdict: 'uncertain' });
  });

  it('the floor is an option', () => {
    expect(gradeProblem({ text: '23+45=67', confidence: 0.85 }, { minConfidence: 0.9 })).toMatchObject({ verdict: 'uncertain', reason: 'low_confidence' });
    expect(gradeProblem({ text: '23+45=67', confidence: 0.75 }, { minConfidence: 0.7 })).toMatchObject({ verdict: 'incorrect' });
  });

  it('nothing written is incorrect/blank only when the reading is very confident', () => {
    expect(grade('23+45=', 0.95)).toMatchObject({ verdict: 'incorrect', reason: 'blank', student_answer: '', correct_answer: '68' });
    expect(grade('23+45=', 0.85)).toMatchObject({ verdict: 'uncertain', reason: 'blank_maybe_unread' });
    expect(grade('30+口=50', 0.95)).toMatchObject({ verdict: 'uncertain', reason: 'blank_maybe_unread' });
    // Something read after the "=" that is no answer (a blurred 1 read as "!") is not nothing, even beside bare paper.
    expect(grade('2÷2=!', 0.95)).toMatchObject({ verdict: 'uncertain', reason: 'unreadable_answer' });
    expect(gradeProblem({ text: '2÷2= ! ', confidence: 0.95, blankSeen: true })).toMatchObject({ verdict: 'uncertain', reason: 'unreadable_answer' });
    // A remainder's answer read as one point ("3÷2=." for 1……1); its printed blank is brackets and dots.
    expect(grade('3÷2=.', 0.95)).toMatchObject({ verdict: 'uncertain', reason: 'unreadable_answer' });
    expect(grade('17÷5=(  )……(  )', 0.95)).toMatchObject({ verdict: 'incorrect', reason: 'blank' });
    expect(grade('17÷5=', 0.95)).toMatchObject({ verdict: 'incorrect', reason: 'blank' });
  });

  it('bare paper seen where the answer goes makes a blank down to the floors of a shaky reading; a fill-in bracket still needs the blank minimum', () => {
    const seen = (text: string, confidence: number, minCharConfidence?: number) => gradeProblem({ text, confidence, minCharConfidence, blankSeen: true });
    expect(seen('23+45=', 0.85)).toMatchObject({ verdict: 'incorrect', reason: 'blank' });
    // The question read shakily: nothing the child wrote depends on it.
    expect(seen('23+45=', 0.75)).toMatchObject({ verdict: 'incorrect', reason: 'blank' });
    expect(seen('23+45=', 0.95, 0.45)).toMatchObject({ verdict: 'incorrect', reason: 'blank' });
    // Below the floors, or without the bare paper, it stays uncertain.
    expect(seen('23+45=', 0.55)).toMatchObject({ verdict: 'uncertain', reason: 'low_confidence' });
    expect(seen('23+45=', 0.95, 0.25)).toMatchObject({ verdict: 'uncertain', reason: 'low_char_confidence' });
    expect(gradeProblem({ text: '23+45=', confidence: 0.75 })).toMatchObject({ verdict: 'uncertain', reason: 'low_confidence' });
    expect(seen('30+()=50', 0.75)).toMatchObject({ verdict: 'uncertain', reason: 'low_confidence' });
    expect(seen('30+()=50', 0.95)).toMatchObject({ verdict: 'incorrect', reason: 'blank' });
    expect(seen('30+()=50', 0.85)).toMatchObject({ verdict: 'uncertain', reason: 'blank_maybe_unread' });
    // An answer that was read is graded as read.
    expect(seen('23+45=68', 0.95)).toMatchObject({ verdict: 'correct' });
  });

  it('requireLowestTerms marks an unreduced fraction wrong, not its value', () => {
    expect(gradeProblem({ text: '1/4+1/4=2/4', confidence: 0.95 }, { requireLowestTerms: true })).toMatchObject({ verdict: 'incorrect', reason: 'not_lowest_terms' });
    expect(gradeProblem({ text: '1/4+1/4=1/2', confidence: 0.95 }, { requireLowestTerms: true }).verdict).toBe('correct');
  });
});

describe('gradeProblem: what the lamp cannot judge', () => {
  it.each<[string, string, string]>([
    ['小明有5个苹果，吃了2个，还剩几个？', 'not_arithmetic', 'not_arithmetic'],
    ['看拼音写词语', 'not_arithmetic', 'not_arithmetic'],
    ['x+3=5', 'not_arithmetic', 'not_arithmetic'],
    ['abc', 'not_arithmetic', 'not_arithmetic'],
    ['1元5角+2角=1元7角', 'not_arithmetic', 'not_arithmetic'],
    ['1米○90厘米', 'not_arithmetic', 'not_arithmetic'],
    ['3+4=7=7', 'ambiguous', 'several_equals'],
    ['3+=7', 'ambiguous', 'operator_without_operand'],
    ['3+4×=7', 'ambiguous', 'operator_without_operand'],
    ['×3=9', 'ambiguous', 'operator_without_operand'],
    ['(3+4×2=14', 'ambiguous', 'unbalanced_brackets'],
    ['((3+4×2=14', 'ambiguous', 'unbalanced_brackets'],
    ['(3+4×2-1=14', 'ambiguous', 'unbalanced_brackets'],
    ['5÷0=', 'ambiguous', 'division_by_zero'],
    ['5÷(3-3)=1', 'ambiguous', 'division_by_zero'],
    ['0×()=0', 'ambiguous', 'no_single_answer'],
    ['0×()=5', 'ambiguous', 'no_single_answer'],
    ['()+()=10', 'ambiguous', 'several_blanks'],
    ['3-5=', 'ambiguous', 'negative_result'],
    ['3×()=10', 'ambiguous', 'no_whole_number_answer'],
    ['23+45', 'ambiguous', 'no_equals'],
    ['=68', 'ambiguous', 'missing_question'],
    ['68=68', 'ambiguous', 'no_operator'],
    ['3(4+5)=27', 'ambiguous', 'missing_operator'],
    ['45>54<60', 'ambiguous', 'several_relations'],
    ['3+4=7>6', 'ambiguous', 'equals_and_compare'],
    ['23+45=6/8/9', 'ambiguous', 'bad_fraction'],
    ['', 'ambiguous', 'empty'],
    ['+-×÷', 'ambiguous', 'no_equals'],
  ])('%j → uncertain (%s: %s)', (text, kind, reason) => {
    const g = grade(text);
    expect(g).toMatchObject({ verdict: 'uncertain', kind, reason, correct_answer: null });
  });

  it('a missing bracket is put back when every place for it gives the same answer', () => {
    expect(grade('3+4)×2=14')).toMatchObject({ verdict: 'correct', question: '(3+4)×2=', confidence: 0.9 });
    expect(grade('((3+4)×2=14')).toMatchObject({ verdict: 'correct', correct_answer: '14' });
    expect(grade('(3+4×(2-1)=7')).toMatchObject({ verdict: 'correct', correct_answer: '7' });
    // …but a different answer is not marked wrong on a guessed bracket.
    expect(grade('(3+4×(2-1)=14')).toMatchObject({ verdict: 'uncertain', reason: 'bracket_guessed', correct_answer: '7' });
    expect(grade('3+4)×2=15')).toMatchObject({ verdict: 'uncertain', reason: 'bracket_guessed' });
    // The "(" of a fill-in blank that opens the problem can go nowhere else: its answer is graded.
    expect(grade('53)-40=14')).toMatchObject({ verdict: 'incorrect', question: '()-40=14', student_answer: '53', correct_answer: '54' });
    expect(grade('54)-40=14')).toMatchObject({ verdict: 'correct' });
  });

  it('an expression after a bare = is a comparison whose sign may be misread: never wrong', () => {
    expect(grade('3+4=2+5')).toMatchObject({ verdict: 'correct', kind: 'compare' });
    expect(grade('23+45=6+8')).toMatchObject({ verdict: 'uncertain', reason: 'look_alike_in_answer', kind: 'compare' });
  });
});

describe('operators the recogniser confuses', () => {
  it.each([
    ['30+6=5', 'operator_may_be_misread'], // 30÷6=5 with the dots lost
    ['(13+35)+6=8', 'operator_may_be_misread'], // (13+35)÷6=8
    ['56-7=8', 'operator_may_be_misread'], // 56÷7=8
    ['4+4=16', 'operator_may_be_misread'], // 4×4=16
    ['8×6.25=23', 'operator_may_be_misread'], // 8×6-25=23, the minus read as a point
  ])('%s is uncertain, not wrong', (text, reason) => {
    expect(gradeProblem({ text, confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason });
  });

  it('a wrong answer with no look-alike reading is still wrong', () => {
    expect(gradeProblem({ text: '30+6=35', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    expect(gradeProblem({ text: '30÷6=6', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
  });

  it('an operator the ink confirms is not read as its look-alike', () => {
    // 13-11=12 could be 13÷11=1……2 with the dots and the …… lost, unless the - is a bare bar.
    expect(gradeProblem({ text: '13-11=12', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
    expect(gradeProblem({ text: '13-11=12', confidence: 0.99, inkConfirmed: new Set([2]) })).toMatchObject({ verdict: 'incorrect' });
    expect(gradeProblem({ text: '56 ÷ 7 = 49', confidence: 0.99, inkConfirmed: new Set([3]) })).toMatchObject({ verdict: 'incorrect' });
    // 3x3=6: the x could be a + (3+3=6), unless its ink is a cross of diagonals.
    expect(gradeProblem({ text: '3x3=6', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'look_alike_in_question' });
    expect(gradeProblem({ text: '3x3=6', confidence: 0.99, inkConfirmed: new Set([1]) })).toMatchObject({ verdict: 'incorrect' });
    // A "-" may be a "+" whose upright blurred away ("(46+18)÷8=8" read as "(46-18)÷8=8"):
    // 50-20-10=40 is wrong only when the ink shows both minus signs as bare bars.
    expect(gradeProblem({ text: '50-20-10=40', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
    expect(gradeProblem({ text: '50-20-10=40', confidence: 0.99, inkConfirmed: new Set([2, 5]) })).toMatchObject({ verdict: 'incorrect', correct_answer: '20' });
    // A confirmation elsewhere in the line leaves the other operator's look-alike open.
    expect(gradeProblem({ text: '(13+35)+6=8', confidence: 0.99, inkConfirmed: new Set([3]) })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
  });

  it('a + whose ink rules out × may still be a ÷', () => {
    expect(gradeProblem({ text: '24+3=72', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
    expect(gradeProblem({ text: '24+3=72', confidence: 0.99, inkRuledOut: new Map([[2, '×']]) })).toMatchObject({ verdict: 'incorrect', correct_answer: '27' });
    expect(gradeProblem({ text: '24+3=8', confidence: 0.99, inkRuledOut: new Map([[2, '×']]) })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
    // Ruled out at another operator's place: no help.
    expect(gradeProblem({ text: '24+3=72', confidence: 0.99, inkRuledOut: new Map([[0, '×']]) })).toMatchObject({ verdict: 'uncertain' });
  });

  it('a sign between two fractions is not read as × or ÷ (grades 1–3 only add and subtract them)', () => {
    // 1/3÷1/3 = 1 = 3/3, but no grade 1–3 page divides fractions.
    expect(gradeProblem({ text: '1/3+1/3=3/3', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect', correct_answer: '2/3' });
    expect(gradeProblem({ text: '1/3-1/3=3/3', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    // A + beside a whole number may still be a ×: 3×1/3 = 1.
    expect(gradeProblem({ text: '3+1/3=1', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
  });

  it('a quotient with bare paper after it lost no remainder: wrong, and so is a + that is right only as a ÷ with a lost remainder', () => {
    expect(gradeProblem({ text: '15÷2=7', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'remainder_not_read' });
    expect(gradeProblem({ text: '15÷2=7', confidence: 0.99, nothingAfterAnswer: true })).toMatchObject({ verdict: 'incorrect', correct_answer: '7……1' });
    expect(gradeProblem({ text: '15+2=7', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
    expect(gradeProblem({ text: '15+2=7', confidence: 0.99, nothingAfterAnswer: true })).toMatchObject({ verdict: 'incorrect', correct_answer: '17' });
    expect(gradeProblem({ text: '(23+1)÷8=2', confidence: 0.99, nothingAfterAnswer: true })).toMatchObject({ verdict: 'incorrect' });
    // What bare paper after the answer does not settle: a remainder read without its quotient or dots, a ÷ that comes out even.
    expect(gradeProblem({ text: '17÷5=2', confidence: 0.99, nothingAfterAnswer: true })).toMatchObject({ verdict: 'uncertain', reason: 'remainder_not_read' });
    expect(gradeProblem({ text: '17÷5=32', confidence: 0.99, nothingAfterAnswer: true })).toMatchObject({ verdict: 'uncertain', reason: 'remainder_not_read' });
    expect(gradeProblem({ text: '30+6=5', confidence: 0.99, nothingAfterAnswer: true })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
  });
});

describe('marks OCR loses', () => {
  it.each([
    ['2.5-0.1=24', 'decimal_point_maybe_lost'],
    ['0.5+0.3=8', 'decimal_point_maybe_lost'],
    ['0.1+0.1=2', 'decimal_point_maybe_lost'], // 0.2 with its "0." lost
    ['0.4+0.4=09', 'answer_misread'], // 0.9 for 0.8, but the 0 may be a digit misread
    ['0.2+0.9=1', 'decimal_point_maybe_lost'],
    ['12+0.6=18', 'decimal_point_maybe_lost'], // 1.2+0.6=1.8, the points of 1.2 and 1.8 lost
    ['12+0.6=1.8', 'decimal_point_maybe_lost'],
    ['(54-13)+24=6.5', 'decimal_point_maybe_spurious'],
    ['3+19=2.2', 'decimal_point_maybe_spurious'],
    ['33+19=28', 'operator_may_be_lost'], // 3×3+19=28 with the × lost
    ['45+3=23', 'operator_may_be_lost'], // 4×5+3=23
    ['47+1/7=5/7', 'fraction_bar_may_be_lost'], // 4/7+1/7
    ['47+17=5/7', 'fraction_bar_may_be_lost'], // 4/7+1/7, both bars lost
    ['77-13=04', 'answer_misread'],
    ['36÷4=0', 'answer_misread'],
    ['48+2=0', 'answer_misread'],
    ['17-8=0', 'answer_misread'],
    ['18-2=10', 'answer_misread'], // a handwritten 16 blurred to 10
    ['9×10=00', 'answer_misread'], // 90
    ['40+7=5.5', 'operator_may_be_misread'], // 40÷7=5……5 with ÷ and …… both misread
    ['43+6=7', 'operator_may_be_misread'], // 43÷6=7……1 with the remainder lost
  ])('%s is uncertain (%s)', (text, reason) => {
    expect(gradeProblem({ text, confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason });
  });
  it('a × is not lost between the digits of a fill-in blank the child wrote', () => {
    // (4×8)+8=40: read alone, 48 in the blank may be a printed 4×8 that lost its ×.
    expect(gradeProblem({ text: '(48)+8=40', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_lost' });
    expect(gradeProblem({ text: '(48)+8=40', confidence: 0.99, blankWrittenByChild: true })).toMatchObject({ verdict: 'incorrect', student_answer: '48' });
    // Outside the blank a lost × is still looked for: (32)+3×3=41 read as (32)+33=41.
    expect(gradeProblem({ text: '(32)+33=41', confidence: 0.99, blankWrittenByChild: true })).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_lost' });
  });

  it('an answer read with a leading zero in a problem with decimals has lost the point after it', () => {
    expect(gradeProblem({ text: '0.1+0.2=03', confidence: 0.99 })).toMatchObject({ verdict: 'correct', reason: 'decimal_point_put_back', student_answer: '03' });
    expect(gradeProblem({ text: '1.2-1.15=005', confidence: 0.99 })).toMatchObject({ verdict: 'correct', reason: 'decimal_point_put_back' });
    // Only in a problem with decimals: "04" for 4×1 is a misread digit, and 0.4 no answer to it.
    expect(gradeProblem({ text: '77-13=04', confidence: 0.99 })).toMatchObject({ verdict: 'uncertain', reason: 'answer_misread' });
  });
  it('a decimal answer that is simply wrong stays wrong, so does an answer no lost operator explains, and a 0 that subtracting gives', () => {
    expect(gradeProblem({ text: '2.5-0.1=2.3', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    expect(gradeProblem({ text: '3+19=2.3', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    // A 0 that no loop closed can explain: 18-2 answered 30 (36, 39, 38 are wrong too).
    expect(gradeProblem({ text: '18-2=30', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    expect(gradeProblem({ text: '45+3=47', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    expect(gradeProblem({ text: '68+3=17', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' }); // 6+8+3, but a + is not lost
    expect(gradeProblem({ text: '4/7+1/7=6/7', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    // 0 for 4÷4 (its ÷ sure from the ink) or 3×3 is a child who subtracted.
    expect(gradeProblem({ text: '4÷4=0', confidence: 0.99, inkConfirmed: new Set([1]) })).toMatchObject({ verdict: 'incorrect' });
    expect(gradeProblem({ text: '3×3=0', confidence: 0.99 })).toMatchObject({ verdict: 'incorrect' });
    expect(gradeProblem({ text: '0×7=0', confidence: 0.99 })).toMatchObject({ verdict: 'correct' });
  });
});

describe('a remainder means division', () => {
  it('43+6=7……1 is 43÷6 with its dots lost: right, with a look-alike guessed', () => {
    expect(gradeProblem({ text: '43+6=7……1', confidence: 0.97 })).toMatchObject({ question: '43÷6=', student_answer: '7……1', verdict: 'correct', confidence: 0.92 });
  });
  it('a wrong remainder read that way is only uncertain', () => {
    expect(gradeProblem({ text: '28+3=8……2', confidence: 0.97 })).toMatchObject({ verdict: 'uncertain', reason: 'look_alike_in_question' });
  });
});
