public class CandidateLoop {
    // counts vowels, one character at a time
    public static int countVowels(String s) {
        int n = 0;
        for (char ch : s.toLowerCase().toCharArray()) {
            if ("aeiou".indexOf(ch) >= 0) {
                n++;
            }
        }
        return n;
    }
}
